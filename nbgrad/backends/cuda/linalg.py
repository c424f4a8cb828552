"""Matrix multiply: shared-memory tiles with register blocking, one kernel per dtype and tile configuration.

A block computes a BM x BN tile of one output matrix (grid z = batch index):
per step of BK along k it stages an A tile (stored k-major) and a B tile in
shared memory, then each thread accumulates a TM x TN register block.
Operands are read through their strides (a transposed operand needs no copy);
the loading order follows whichever dim of the operand is contiguous, so
global reads stay coalesced for C and F layouts alike.  float32 accumulates in
float32 with FMA (PyTorch with TF32 off).  The configurations, which one a
product uses and how one is chosen by measurement: matmul_tiles.py.
"""
import collections

import numba
import numpy as np
from numba import cuda

from .._shared import linalg as shared_linalg
from .._shared.geometry import batch_offsets, numel
from ._device import as_device, device_array, jit, to_device
from . import matmul_tiles
from .strided_copy import fill

# Launches by tile name: which kernel ran (tests assert the choice took effect).
LAUNCHES = collections.Counter()


def make_stage(BK, THREADS):
    """The device function staging one operand tile, for a tile of depth BK and THREADS threads."""
    @cuda.jit(device=True)
    def stage(tile, width, src, base, x0, xn, xs, k0, k, ks, walk_k, tid):
        """tile[kk, x] = src[base + (x0 + x) * xs + (k0 + kk) * ks] for a BK x width tile (0 outside
        the operand); walk_k: neighbouring threads take neighbouring kk (else neighbouring x)."""
        for e in range(tid, width * BK, THREADS):
            if walk_k:
                x = e // BK
                kk = e - x * BK
            else:
                kk = e // width
                x = e - kk * width
            gx = x0 + x
            gk = k0 + kk
            if gx < xn and gk < k:
                tile[kk, x] = src[base + gx * xs + gk * ks]
            else:
                tile[kk, x] = 0
    return stage


def make_matmul(np_dtype, tile=None):
    """The kernel for one dtype and one matmul_tiles.Tile (the default configuration when None)."""
    dt = numba.from_dtype(np.dtype(np_dtype))
    tile = tile or matmul_tiles.TILES[matmul_tiles.DEFAULT]
    BM, BN, BK, TM, TN = tile.bm, tile.bn, tile.bk, tile.tm, tile.tn
    TX = BN // TN
    _stage = make_stage(BK, tile.threads)

    @jit
    def matmul_tiles_kernel(a, aoffs, a_sn, a_sk, b, boffs, b_sk, b_sm, out, n, k, m):
        As = cuda.shared.array((BK, BM), dt)
        Bs = cuda.shared.array((BK, BN), dt)
        acc = cuda.local.array((TM, TN), dt)
        ra = cuda.local.array(TM, dt)
        rb = cuda.local.array(TN, dt)
        tid = cuda.threadIdx.x
        tx = tid % TX
        ty = tid // TX
        bz = cuda.blockIdx.z
        row0 = cuda.blockIdx.y * BM
        col0 = cuda.blockIdx.x * BN
        pa = aoffs[bz]
        pb = boffs[bz]
        po = bz * n * m
        for r in range(TM):
            for c in range(TN):
                acc[r, c] = 0
        for k0 in range(0, k, BK):
            # neighbouring threads walk whichever dim of the operand is contiguous
            _stage(As, BM, a, pa, row0, n, a_sn, k0, k, a_sk, a_sk == 1, tid)
            _stage(Bs, BN, b, pb, col0, m, b_sm, k0, k, b_sk, b_sm != 1, tid)
            cuda.syncthreads()
            for kk in range(BK):
                for r in range(TM):
                    ra[r] = As[kk, ty * TM + r]
                for c in range(TN):
                    rb[c] = Bs[kk, tx * TN + c]
                for r in range(TM):
                    for c in range(TN):
                        acc[r, c] += ra[r] * rb[c]
            cuda.syncthreads()
        for r in range(TM):
            gi = row0 + ty * TM + r
            if gi < n:
                for c in range(TN):
                    gj = col0 + tx * TN + c
                    if gj < m:
                        out[po + gi * m + gj] = acc[r, c]

    return matmul_tiles_kernel


_kernels = {}


def matmul_kernel(np_dtype, tile=None):
    tile = tile or matmul_tiles.TILES[matmul_tiles.DEFAULT]
    key = (np.dtype(np_dtype), tile)
    k = _kernels.get(key)
    if k is None:
        k = _kernels[key] = make_matmul(key[0], tile)
    return k


def matmul(a_view, b_view, out_dtype):
    return matmul_with_tile(a_view, b_view, out_dtype, None)


def matmul_with_tile(a_view, b_view, out_dtype, tile):
    """a @ b (batched, broadcast batch strides) with this matmul_tiles.Tile, or the chosen one when None."""
    abuf, aoff, a_shape, ast = a_view
    bbuf, boff, b_shape, bst = b_view
    abuf, bbuf = as_device(abuf), as_device(bbuf)
    a_shape, b_shape = tuple(a_shape), tuple(b_shape)
    batch = a_shape[:-2]
    n, k = a_shape[-2:]
    m = b_shape[-1]
    nb = numel(batch)
    out = device_array(nb * n * m, out_dtype)
    if out.size == 0:
        return out
    if k == 0:
        fill((out, 0, (out.size,), (1,)), 0)
        return out
    if tile is None:
        tile = matmul_tiles.choose(n, m, nb, out.dtype)
    aoffs = to_device(batch_offsets(aoff, batch, ast[:-2]))
    boffs = to_device(batch_offsets(boff, batch, bst[:-2]))
    grid = ((m + tile.bn - 1) // tile.bn, (n + tile.bm - 1) // tile.bm, nb)
    LAUNCHES[tile.name] += 1
    matmul_kernel(out.dtype, tile)[grid, tile.threads](abuf, aoffs, ast[-2], ast[-1], bbuf, boffs, bst[-2],
                                                       bst[-1], out, n, k, m)
    return out


def linear_backward(g_view, x_view, w_view, need_x=True, need_w=True, need_b=True):
    """(gx, gw, gb) of out = x @ w.T + b: nbgrad/backends/_shared/linalg.py with this backend's kernels."""
    from .reduction import reduce  # a Python wrapper, not a jitted helper
    return shared_linalg.linear_backward(matmul, reduce, g_view, x_view, w_view, need_x, need_w, need_b)
