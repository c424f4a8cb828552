"""Matrix multiply: BLAS through np.dot for floats, a plain loop kernel for integers.

Float operands are used in place when their last two dims are C- or
F-contiguous (a transposed C matrix is F: no copy); only an operand that is
neither is copied to C order first.  The batch dims (already broadcast, 0
strides allowed) become an int64 array of per-matrix offsets, looped over
inside the kernel.  Serial: BLAS brings its own threads; an integer prange
variant would split the batch or the rows.  A single 2-D product of C/F
matrices (n, m > 1) calls NumPy's np.dot from Python instead (_numpy_gemm: a
faster copy of OpenBLAS than the one Numba reaches); there a product of
_team.MIN_MULTIPLY_ADDS or more is split across the BLAS team's spinning
workers (_team.py: one-thread gemms on blocks of the output, claimed, so a late
worker costs no wait), and the other products below
_blas_threads.SERIAL_BELOW multiply-adds run on one BLAS thread.
"""
import numpy as np
from numba import config, njit

from ... import _debug
from ._allocator import new_buffer
from . import _team
from ._blas_threads import controls as blas_controls, serial_begin, serial_end
from ._threads import num_threads
from .._shared import linalg as shared_linalg
from .._shared.geometry import batch_offsets, contiguous_strides, is_c_matrix, is_f_matrix, numel
from .strided_copy import copy  # a Python wrapper, not a jitted helper

_kernel = njit(cache=True, error_model="numpy")


def _blas_dot(x, y, out):
    """np.dot(x, y, out) for 2-D floats (out C-contiguous) as compiled code does it: the
    BLAS call Numba's np.dot makes (numba/np/linalg.py dot_3_mm): ?dot for 1x1 results,
    ?gemv when x has one row or y one column, else ?gemm with out^T = y^T x^T; an operand
    that is not C is passed transposed (linalg._float_operand calls C what is both)."""
    from scipy.linalg import blas
    single = out.dtype == np.float32
    (m, k), n = x.shape, y.shape[1]
    if m == 0 or n == 0 or k == 0:
        out[...] = 0
    elif m == 1 and n == 1:
        dot = blas.sdot if single else blas.ddot
        out[0, 0] = dot(x.ravel(order="K"), y.ravel(order="K"))
    elif n == 1:
        gemv = blas.sgemv if single else blas.dgemv
        a, trans = (x.T, 1) if x.flags.c_contiguous else (x, 0)
        out[:, 0] = gemv(1.0, a, y.ravel(order="K"), trans=trans)
    elif m == 1:
        gemv = blas.sgemv if single else blas.dgemv
        a, trans = (y.T, 0) if y.flags.c_contiguous else (y, 1)
        out[0, :] = gemv(1.0, a, x.ravel(order="K"), trans=trans)
    else:
        gemm = blas.sgemm if single else blas.dgemm
        a, trans_a = (y.T, 0) if y.flags.c_contiguous else (y, 1)
        b, trans_b = (x.T, 0) if x.flags.c_contiguous else (x, 1)
        out[...] = gemm(1.0, a, b, trans_a=trans_a, trans_b=trans_b).T


# Under NUMBA_DISABLE_JIT=1 the kernels below run as Python, where NumPy's own
# np.dot takes other BLAS routes ([[0]] @ [[-inf]] is 0 there, nan through Numba's
# gemv): _blas_dot makes both modes give the same bits.
_dot = _blas_dot if config.DISABLE_JIT else np.dot

_C, _F = 0, 1


@_kernel
def _dot_batches(a, aoffs, a_layout, b, boffs, b_layout, out, n, k, m):
    for i in range(aoffs.size):
        pa = aoffs[i]
        pb = boffs[i]
        o = out[i * n * m:(i + 1) * n * m].reshape((n, m))
        # Four explicit branches: a C and an F matrix are different Numba types.
        if a_layout == 0 and b_layout == 0:
            _dot(a[pa:pa + n * k].reshape((n, k)), b[pb:pb + k * m].reshape((k, m)), o)
        elif a_layout == 0:
            _dot(a[pa:pa + n * k].reshape((n, k)), b[pb:pb + k * m].reshape((m, k)).T, o)
        elif b_layout == 0:
            _dot(a[pa:pa + n * k].reshape((k, n)).T, b[pb:pb + k * m].reshape((k, m)), o)
        else:
            _dot(a[pa:pa + n * k].reshape((k, n)).T, b[pb:pb + k * m].reshape((m, k)).T, o)


@_kernel
def _loop_batches(a, aoffs, a_sn, a_sk, b, boffs, b_sk, b_sm, out, n, k, m):
    # i-k-j order: the innermost loop walks a row of b and a row of out.
    for bi in range(aoffs.size):
        pa = aoffs[bi]
        pb = boffs[bi]
        po = bi * n * m
        for t in range(n * m):
            out[po + t] = 0
        for i in range(n):
            for kk in range(k):
                av = a[pa + i * a_sn + kk * a_sk]
                qb = pb + kk * b_sk
                qo = po + i * m
                for j in range(m):
                    out[qo + j] += av * b[qb + j * b_sm]


@_kernel
def _outer(a, pa, a_sn, b, pb, b_sm, out, n, m):
    for i in range(n):
        av = a[pa + i * a_sn]
        for j in range(m):
            out[i * m + j] = av * b[pb + j * b_sm]


def _float_operand(view, rows, cols):
    """(buf, batch offsets, layout) with the last two dims C or F contiguous."""
    buf, off, shape, strides = view
    s_rows, s_cols = strides[-2], strides[-1]
    if is_c_matrix(rows, cols, s_rows, s_cols):
        return buf, batch_offsets(off, shape[:-2], strides[:-2]), _C
    if is_f_matrix(rows, cols, s_rows, s_cols):
        return buf, batch_offsets(off, shape[:-2], strides[:-2]), _F
    tmp = new_buffer(numel(shape), buf.dtype)
    cst = contiguous_strides(shape)
    copy(view, (tmp, 0, shape, cst))
    return tmp, batch_offsets(0, shape[:-2], cst[:-2]), _C


def _numpy_matrix(view, rows, cols):
    """A C or F (rows, cols) view as a NumPy matrix over its buffer (no copy), else None."""
    buf, off, _, strides = view
    s_rows, s_cols = strides[-2], strides[-1]
    if s_cols == 1 and s_rows == cols:
        return buf[off:off + rows * cols].reshape(rows, cols)
    if s_rows == 1 and s_cols == rows:
        return buf[off:off + rows * cols].reshape(cols, rows).T
    return None


# Whether single 2-D products go to NumPy's BLAS: None until first asked, then whether
# _blas_threads found NumPy's OpenBLAS (its thread count must be controllable).
_NUMPY_ROUTE = [None]


def _numpy_route():
    if _NUMPY_ROUTE[0] is None:
        _NUMPY_ROUTE[0] = bool(blas_controls("numpy"))
    return _NUMPY_ROUTE[0]


def _blas_layout(view, rows, cols):
    """(cblas transpose flag, leading dimension) of a C (111, NoTrans) or F (112, Trans) (rows,
    cols) view, else None: how np.dot hands such a matrix to gemm."""
    strides = view[3]
    s_rows, s_cols = strides[-2], strides[-1]
    if s_cols == 1 and s_rows == cols:
        return 111, cols
    if s_rows == 1 and s_cols == rows:
        return 112, rows
    return None


def _numpy_dot(a_view, a_layout, b_view, b_layout, out, n, k, m):
    """out = a @ b as the one gemm np.dot calls (NumPy's OpenBLAS's cblas gemm, same
    operands, flags and sizes: the same bits), called straight from compiled code
    (_team.whole_gemm); np.dot itself where those symbols were not found."""
    fn = _team.gemm_address(out.dtype)
    if fn is None:
        with np.errstate(all="ignore"):        # (NaN/inf products warn in NumPy, not in PyTorch)
            np.dot(_numpy_matrix(a_view, n, k), _numpy_matrix(b_view, k, m), out=out.reshape(n, m))
        return
    _team.whole_gemm(fn, a_view[0], a_view[1], a_layout[0], a_layout[1], b_view[0], b_view[1], b_layout[0],
                     b_layout[1], out, n, m, k)


def _same_start(a_view, b_view):
    """Whether the two views' first elements are at one address."""
    (abuf, aoff), (bbuf, boff) = a_view[:2], b_view[:2]
    return abuf.__array_interface__["data"][0] + aoff * abuf.itemsize == \
        bbuf.__array_interface__["data"][0] + boff * bbuf.itemsize


def _numpy_gemm(a_view, b_view, out, n, k, m):
    """out = a @ b through NumPy's BLAS's gemm for C/F matrices with n, k, m > 1; False when
    the operands are not such a pair.  NumPy's wheel carries a newer OpenBLAS
    than SciPy's (0.3.31 vs 0.3.30 here), the same gemm, same bits on the products tried,
    faster on the W4 step's shapes (one thread, cblas_sgemm through ctypes, min of 9: 128x784x256
    603 vs 660 us, 10x128x256 41 vs 66 us, 256x128x784 817 vs 1019 us; the W4 step 3.28 vs
    3.40, 4.00 vs 4.10, 4.25 vs 4.38 ms, medians of 9 interleaved samples).  A matrix times its
    own transpose (same memory) is left to the Numba kernel: np.dot would take BLAS's syrk."""
    if not _numpy_route():
        return False
    a_layout = _blas_layout(a_view, n, k)
    b_layout = _blas_layout(b_view, k, m)
    abuf, bbuf = a_view[0], b_view[0]
    if a_layout is None or b_layout is None or abuf.dtype != out.dtype or bbuf.dtype != out.dtype:
        return False
    if n == m and a_layout[0] != b_layout[0] and a_layout[1] == b_layout[1] and _same_start(a_view, b_view):
        return False        # (a C matrix beside its own transpose's F view, or the reverse)
    threads = num_threads() if n * k * m >= _team.MIN_MULTIPLY_ADDS else 1
    split = threads > 1 and _team.gemm(_numpy_matrix(a_view, n, k), _numpy_matrix(b_view, k, m),
                                       out.reshape(n, m), threads)
    if _debug.ENABLED:
        # the same fields as the kernel's BLAS route (no operand copied), and which BLAS
        _debug.log("matmul", path="blas", library="numpy, split across the team" if split else "numpy",
                   n=n, k=k, m=m, batch=1, dtype=abuf.dtype, a="C" if a_layout[0] == 111 else "F",
                   b="C" if b_layout[0] == 111 else "F", copied=[], **({"pieces": threads} if split else {}))
    if split:
        return True
    threads = serial_begin(n * k * m, "numpy")
    try:
        _numpy_dot(a_view, a_layout, b_view, b_layout, out, n, k, m)
    finally:
        serial_end(threads, "numpy")
    return True


def matmul(a_view, b_view, out_dtype):
    a_shape = tuple(a_view[2])
    b_shape = tuple(b_view[2])
    batch = a_shape[:-2]
    n, k = a_shape[-2:]
    m = b_shape[-1]
    out = new_buffer(numel(batch) * n * m, out_dtype)
    if out.size == 0:
        return out
    if k == 0:
        out[:] = 0
        return out
    if np.dtype(out_dtype).kind == "f":
        if k == 1 and n > 1 and m > 1 and not batch:
            # PyTorch's CPU gemm with one inner term writes each product itself (a 0 times a
            # negative is -0.0; a single row or column goes to gemv, which adds it to +0.0,
            # as BLAS through np.dot does)
            abuf, aoff, _, ast = a_view
            bbuf, boff, _, bst = b_view
            if _debug.ENABLED: _debug.log("matmul", path="outer product loop (k=1)", n=n, k=k, m=m)
            _outer(abuf, aoff, ast[0], bbuf, boff, bst[1], out, n, m)
            return out
        if not batch and n > 1 and m > 1 and _NUMPY_ROUTE[0] is not False:
            done = _numpy_gemm(a_view, b_view, out, n, k, m)
            if done:
                return out
        abuf, aoffs, alay = _float_operand(a_view, n, k)
        bbuf, boffs, blay = _float_operand(b_view, k, m)
        if _debug.ENABLED:
            _debug.log("matmul", path="blas", n=n, k=k, m=m, batch=len(aoffs), dtype=abuf.dtype,
                       a="C" if alay == _C else "F", b="C" if blay == _C else "F",
                       copied=[name for name, buf, view in (("a", abuf, a_view), ("b", bbuf, b_view))
                               if buf is not view[0]])
        threads = serial_begin(len(aoffs) * n * k * m)
        try:
            _dot_batches(abuf, aoffs, alay, bbuf, boffs, blay, out, n, k, m)
        finally:
            serial_end(threads)
        return out
    abuf, aoff, _, ast = a_view
    bbuf, boff, _, bst = b_view
    aoffs = batch_offsets(aoff, batch, ast[:-2])
    boffs = batch_offsets(boff, batch, bst[:-2])
    if _debug.ENABLED: _debug.log("matmul", path="loop", n=n, k=k, m=m, batch=len(aoffs), dtype=abuf.dtype)
    _loop_batches(abuf, aoffs, ast[-2], ast[-1], bbuf, boffs, bst[-2], bst[-1], out, n, k, m)
    return out


def linear_backward(g_view, x_view, w_view, need_x=True, need_w=True, need_b=True):
    """(gx, gw, gb) of out = x @ w.T + b: nbgrad/backends/_shared/linalg.py with this backend's
    kernels, gx and gw side by side on two threads where they pair (_paired_gradients)."""
    from .reduction import reduce  # a Python wrapper, not a jitted helper
    pair = _paired_gradients(g_view, x_view, w_view) if need_x and need_w else None
    if pair is None:
        return shared_linalg.linear_backward(matmul, reduce, g_view, x_view, w_view, need_x, need_w, need_b)
    gb = reduce("sum", g_view, (0,), g_view[0].dtype) if need_b else None
    return pair[0], pair[1], gb


# A pair below this many multiply-adds each is left to matmul (two serial products: a few us)
_PAIR_MIN = 1 << 16


def _paired_gradients(g_view, x_view, w_view):
    """(gx = g @ w, gw = g.T @ x) of a float linear layer as one pair of one-thread gemms run
    side by side by the BLAS team (_team.gemm_pair), or None where matmul takes them one after
    the other: fewer than 2 threads, operands that are not C/F matrices of g's dtype, a dim
    below 2, a small pair, or products that more than 2 threads split (each of those is cut
    into as many pieces as threads, which a pair on two would not use).  The two products
    have the same number of multiply-adds."""
    gbuf, _, (n, o), _ = g_view
    dtype = gbuf.dtype
    i = x_view[2][1]
    threads = num_threads()
    if dtype.kind != "f" or min(n, o, i) < 2 or n * o * i < _PAIR_MIN or threads < 2 or \
            (threads > 2 and n * o * i >= _team.MIN_MULTIPLY_ADDS):
        return None
    if not _numpy_route() or not _team.available():
        return None
    g = _numpy_matrix(g_view, n, o)
    w = _numpy_matrix(w_view, o, i)
    x = _numpy_matrix(x_view, n, i)
    if g is None or w is None or x is None or w.dtype != dtype or x.dtype != dtype:
        return None
    gx = new_buffer(n * i, dtype)
    gw = new_buffer(o * i, dtype)
    if not _team.gemm_pair(g, w, gx.reshape(n, i), g.T, x, gw.reshape(o, i), threads):
        return None
    if _debug.ENABLED:
        _debug.log("matmul", path="blas", library="numpy, a pair side by side on the team", n=n, k=o, m=i,
                   batch=1, dtype=dtype, a="C" if g.flags.c_contiguous else "F",
                   b="C" if w.flags.c_contiguous else "F", copied=[])
    return gx, gw
