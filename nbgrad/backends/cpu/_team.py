"""Matrix products, and native calls, split across spinning native workers (the BLAS team).

A product of a few million multiply-adds (the W4 MLP step's 128x784x256 takes
~0.3 ms on one core here) is too short for OpenBLAS's own threads and for
nbgrad's thread pool: OpenBLAS's threads wait for each other at every panel,
so a worker that another process holds up stalls the product for a time
slice (nbgrad/backends/cpu/_blas_threads.py), and the pool's hand-off through
Python's locks costs ~20-50 us (nbgrad/backends/cpu/_threads.py).  Here the
product is cut into as many pieces as threads, each a whole one-thread GEMM
on a block of output columns (or rows), and the pieces are *claimed*: the
caller publishes the product in a small shared control block, every worker
spinning in compiled code (nogil) sees it within a microsecond, and the
caller and the workers take pieces with a compare-and-swap until none is
left.  The caller then waits only for pieces a worker has already begun: a
worker that is not running (parked, or its core taken by another process)
claims nothing, and the caller computes the whole product itself, at the
one-thread speed, never waiting for a time slice.

A worker spins for SPIN_US microseconds after its last piece (NBGRAD_TEAM_SPIN_US,
default 2000: the gaps between the products of a training step are far
shorter), then parks on an Event until the next product wakes it; a parked
worker's first piece may then be late and the caller does it instead.  The
team has `nbgrad.get_num_threads() - 1` workers, made on first use (and again
in a forked child, which inherits none of its parent's threads).

Each piece calls the cblas_?gemm of NumPy's OpenBLAS (the library matmul's
NumPy route uses, nbgrad/backends/cpu/linalg.py) through its address, with the
library set to one thread around the product.  A piece's elements are the
same sums in the same order as in the whole product where the cut falls on a
step the kernel's unrolled blocks allow (cut_steps, probed on this machine), so
the bits equal one np.dot over the whole product (tests/backends/test_blas_team.py
checks them for each layout).  Where NumPy's OpenBLAS or its cblas symbols are not found,
`available()` is False and matmul keeps its other routes.

The same workers run *native calls* (`call`): a C function void f(args, lo, hi)
over pieces [lo, hi) of a range, claimed the same way.  nbgrad's kernels with
a native entry point (the contiguous elementwise ones, elementwise.py) split
through it from far smaller sizes than the pool pays for
(_threads.run_native).

The control block `_CTL` (int64, each field on its own cache line):
  CLAIM   (generation << 32) | next piece: the caller stores it to publish a
          product; a piece is claimed by a compare-and-swap of next -> next + 1
          within the same generation, so a worker that comes late to an old
          generation claims nothing of a new one;
  DONE    pieces finished in this generation;
  STOP    1 when the workers are to leave (tests);
  PARKED  1 while some worker waits on the Event;
  YIELD   1 when the spinning workers are to park now (nbgrad's thread pool is about to
          run work on their cores: _threads.run_split calls release());
and `_TASK` the task: its kind; for a product the gemm's address, dtype, layout
flags, sizes, pointers and leading dimensions, the split axis; for a pair of products
(gemm_pair: a linear layer's two gradients, each whole on one thread) both products'
fields; for a call the function's address and its argument block's; the piece bounds.
"""
import ctypes
import os
import threading

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from . import _threads

SPIN_US = float(os.environ.get("NBGRAD_TEAM_SPIN_US", 2000))
# products below this many multiply-adds run whole on the caller (a split costs a few us)
MIN_MULTIPLY_ADDS = int(os.environ.get("NBGRAD_TEAM_MIN", 1 << 21))

_CLAIM, _DONE, _STOP, _PARKED, _YIELD = 0, 8, 16, 24, 32
_CTL_SIZE = 40
# _TASK fields: a product (_T_KIND _GEMM_TASK) or a native call (_CALL_TASK: fn(args, lo, hi) for each piece
# [lo, hi) of the bounds, fn the address of a compiled C function, args the address of its
# int64 argument block _ARGS)
(_T_KIND, _T_FN, _T_F64, _T_TA, _T_TB, _T_M, _T_N, _T_K, _T_A, _T_LDA, _T_B, _T_LDB, _T_C, _T_LDC,
 _T_AXIS, _T_ARGS, _T_PIECES, _T_BOUNDS) = range(18)
_GEMM_TASK, _CALL_TASK, _PAIR_TASK = 0, 1, 2
MAX_PIECES = 64
# a pair of products (_PAIR_TASK, gemm_pair): piece 0 the product described at _T_TA.._T_LDC,
# piece 1 the one described in the same order from _T_SECOND
_T_SECOND = _T_BOUNDS + MAX_PIECES + 1
_TASK_SIZE = _T_SECOND + (_T_LDC - _T_TA + 1)
_ARGS_SIZE = 16


# --------------------------------------------------------------------------- #
# atomics and the indirect gemm call (LLVM through llvmlite)

def _slot_op(returns, operation, arr, idx, *values):
    """(signature, codegen) of an intrinsic on the int64 array element arr[idx], or None for
    another array: `operation(builder, pointer, *values cast to int64)` emits the atomic
    instruction and gives the result of Numba type `returns`."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.int64):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, sig.args[0], ary, [args[1]], wraparound=False)
        vals = [context.cast(builder, v, t, types.int64) for v, t in zip(args[2:], sig.args[2:])]
        result = operation(builder, ptr, *vals)
        return context.get_dummy_value() if returns == types.void else result
    return returns(arr, idx, *values), codegen


@intrinsic
def _load_acquire(typingctx, arr, idx):
    """arr[idx] read with acquire order (never hoisted out of a loop)."""
    return _slot_op(types.int64, lambda b, ptr: b.load_atomic(ptr, "acquire", 8), arr, idx)


@intrinsic
def _store_release(typingctx, arr, idx, value):
    """arr[idx] = value with release order: the writes before it are seen before it."""
    return _slot_op(types.void, lambda b, ptr, v: b.store_atomic(v, ptr, "release", 8), arr, idx, value)


@intrinsic
def _compare_swap(typingctx, arr, idx, expected, new):
    """Atomically arr[idx] = new if it equals expected; True when it did."""
    return _slot_op(types.boolean, lambda b, ptr, e, n: b.extract_value(b.cmpxchg(ptr, e, n, "acq_rel", "acquire"), 1),
                    arr, idx, expected, new)


@intrinsic
def _fetch_add(typingctx, arr, idx, value):
    """Atomically arr[idx] += value; the old value."""
    return _slot_op(types.int64, lambda b, ptr, v: b.atomic_rmw("add", ptr, v, "acq_rel"), arr, idx, value)


@intrinsic
def _cpu_relax(typingctx):
    """A spin-wait hint (x86's pause); nothing elsewhere."""
    def codegen(context, builder, sig, args):
        import platform
        if platform.machine().lower() in ("x86_64", "amd64", "i686", "x86"):
            fnty = ir.FunctionType(ir.VoidType(), [])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse2.pause")
            builder.call(fn, [])
        return context.get_dummy_value()
    return types.void(), codegen


def _make_gemm_call(float_type):
    @intrinsic
    def gemm_call(typingctx, fn, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
        """cblas_?gemm(RowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) through its
        address fn (ILP64: 64-bit sizes; a, b, c addresses as int64)."""
        sig = types.void(types.int64, types.int64, types.int64, types.int64, types.int64, types.int64,
                         float_type, types.int64, types.int64, types.int64, types.int64, float_type,
                         types.int64, types.int64)

        def codegen(context, builder, signature, args):
            i32, i64 = ir.IntType(32), ir.IntType(64)
            ft = context.get_value_type(float_type)
            vp = ir.IntType(8).as_pointer()
            fnty = ir.FunctionType(ir.VoidType(), [i32, i32, i32, i64, i64, i64, ft, vp, i64, vp, i64, ft, vp, i64])
            f = builder.inttoptr(args[0], fnty.as_pointer())
            (_, ta_, tb_, m_, n_, k_, al, a_, lda_, b_, ldb_, be, c_, ldc_) = args
            builder.call(f, [ir.Constant(i32, 101), builder.trunc(ta_, i32), builder.trunc(tb_, i32), m_, n_, k_,
                             al, builder.inttoptr(a_, vp), lda_, builder.inttoptr(b_, vp), ldb_, be,
                             builder.inttoptr(c_, vp), ldc_])
            return context.get_dummy_value()
        return sig, codegen
    return gemm_call


_sgemm_call = _make_gemm_call(types.float32)
_dgemm_call = _make_gemm_call(types.float64)


@intrinsic
def _native_call(typingctx, fn, args, lo, hi):
    """The C function void fn(int64 args, int64 lo, int64 hi) called through its address."""
    def codegen(context, builder, signature, a):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(ir.VoidType(), [i64, i64, i64])
        builder.call(builder.inttoptr(a[0], fnty.as_pointer()), [a[1], a[2], a[3]])
        return context.get_dummy_value()
    return types.void(types.int64, types.int64, types.int64, types.int64), codegen


_kernel = njit(nogil=True, cache=True)


@_kernel
def _piece(task, p):
    """Piece p of the published task: a native call's range, a block of a product's output
    columns (axis 1) or rows (axis 0), or one product of a pair, whole."""
    lo = task[_T_BOUNDS + p]
    hi = task[_T_BOUNDS + p + 1]
    if hi <= lo:
        return
    if task[_T_KIND] == _CALL_TASK:
        _native_call(task[_T_FN], task[_T_ARGS], lo, hi)
    elif task[_T_KIND] == _PAIR_TASK:
        _gemm_block(task, _T_TA if p == 0 else _T_SECOND, -1, 0, 0)
    else:
        _gemm_block(task, _T_TA, task[_T_AXIS], lo, hi)


@_kernel
def _gemm_block(task, at, axis, lo, hi):
    """The product described from task[at] (ta, tb, m, n, k, a, lda, b, ldb, c, ldc: _describe),
    whole (axis -1) or its output columns lo:hi (axis 1) or rows lo:hi (axis 0), as one gemm."""
    ta, tb, m, n, k = task[at], task[at + 1], task[at + 2], task[at + 3], task[at + 4]
    a, lda, b, ldb, c, ldc = task[at + 5], task[at + 6], task[at + 7], task[at + 8], task[at + 9], task[at + 10]
    size = 8 if task[_T_F64] else 4
    if axis == 1:
        # columns lo:hi of op(B) and of C: op(B) = B (k x n, row-major) starts lo elements in,
        # op(B) = B^T (B is n x k) starts lo rows in
        b = b + (lo * ldb if tb == 112 else lo) * size
        c = c + lo * size
        n = hi - lo
    elif axis == 0:
        # rows lo:hi of op(A) and of C
        a = a + (lo if ta == 112 else lo * lda) * size
        c = c + lo * ldc * size
        m = hi - lo
    if task[_T_F64]:
        _dgemm_call(task[_T_FN], ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc)
    else:
        _sgemm_call(task[_T_FN], ta, tb, m, n, k, np.float32(1.0), a, lda, b, ldb, np.float32(0.0), c, ldc)


@_kernel
def _describe(task, at, a, ta, b, tb, out):
    """Write out = op(a) @ op(b) into task from task[at] in _gemm_block's order (cblas row-major:
    a and b are C-contiguous, t 111 NoTrans for the matrix itself, 112 Trans for its transpose;
    either way the leading dimension is the stored row length)."""
    m = a.shape[0] if ta == 111 else a.shape[1]
    k = a.shape[1] if ta == 111 else a.shape[0]
    n = b.shape[1] if tb == 111 else b.shape[0]
    task[at], task[at + 6] = ta, a.shape[1]
    task[at + 1], task[at + 8] = tb, b.shape[1]
    task[at + 2], task[at + 3], task[at + 4] = m, n, k
    task[at + 5], task[at + 7], task[at + 9], task[at + 10] = a.ctypes.data, b.ctypes.data, out.ctypes.data, n


@_kernel
def _whole_gemm(fn, a, aoff, ta, lda, b, boff, tb, ldb, out, m, n, k):
    """out[:m * n] = op(A) @ op(B) as one cblas gemm on the calling thread (row-major, the
    operands' elements at aoff and boff of the 1-D buffers a and b; ta/tb 111 NoTrans, 112
    Trans; lda/ldb their stored row lengths) through fn, the address of the gemm of their
    dtype: the call np.dot makes for C/F matrices, without building NumPy matrices for it
    or checking the FPU's flags after it (np.dot warns of NaN/inf products, PyTorch does not).
    np.dot's own Python, the np.errstate that silenced it included, was 6 us of the 20 of a
    128x256x10 float32 product."""
    size = a.itemsize
    pa = _address(a) + aoff * size
    pb = _address(b) + boff * size
    if size == 8:
        _dgemm_call(fn, ta, tb, m, n, k, 1.0, pa, lda, pb, ldb, 0.0, _address(out), n)
    else:
        _sgemm_call(fn, ta, tb, m, n, k, np.float32(1.0), pa, lda, pb, ldb, np.float32(0.0), _address(out), n)


def whole_gemm(fn, a, aoff, ta, lda, b, boff, tb, ldb, out, m, n, k):
    """_whole_gemm, for other modules (a jitted function is called from its own file only:
    nbgrad/backends/cpu/_cache_guard.py)."""
    _whole_gemm(fn, a, aoff, ta, lda, b, boff, tb, ldb, out, m, n, k)


def gemm_address(dtype):
    """The address of NumPy's OpenBLAS cblas gemm for float32/float64 `dtype`, or None."""
    return _GEMM["addresses"][dtype] if available() else None


def _row_major(m):
    """(m, 111) for a C-contiguous matrix, (m.T, 112) for an F-contiguous one: the kernels
    below take C arrays and a cblas transpose flag, so that a product compiles them once per
    dtype, not once per mix of layouts (~0.3 s each on a cold cache)."""
    return (m, 111) if m.flags.c_contiguous else (m.T, 112)


@_kernel
def _claim_and_run(ctl, task, gen):
    """Take pieces of generation gen until none is left."""
    pieces = task[_T_PIECES]
    while True:
        word = _load_acquire(ctl, _CLAIM)
        if (word >> 32) != gen or (word & 0xFFFFFFFF) >= pieces:
            return
        if _compare_swap(ctl, _CLAIM, word, word + 1):
            _piece(task, word & 0xFFFFFFFF)
            _fetch_add(ctl, _DONE, 1)


@_kernel
def _run_product(ctl, task, gen):
    """The caller's side: publish generation gen (its task already written), take pieces, then
    wait for the pieces workers took."""
    _store_release(ctl, _DONE, 0)
    _store_release(ctl, _CLAIM, gen << 32)
    _claim_and_run(ctl, task, gen)
    pieces = task[_T_PIECES]
    while _load_acquire(ctl, _DONE) < pieces:
        _cpu_relax()


@_kernel
def _spin(ctl, task, seen, spins):
    """A worker's loop: run each new generation's pieces; return the last generation seen after
    `spins` idle rounds, or -1 when told to stop."""
    idle = 0
    while idle < spins:
        if _load_acquire(ctl, _STOP) != 0:
            return -1
        if _load_acquire(ctl, _YIELD) != 0:
            return seen
        gen = _load_acquire(ctl, _CLAIM) >> 32
        if gen != seen:
            seen = gen
            _claim_and_run(ctl, task, gen)
            idle = 0
        else:
            _cpu_relax()
            idle += 1
    return seen


@_kernel
def _relax_rounds(n):
    for _ in range(n):
        _cpu_relax()


# --------------------------------------------------------------------------- #
# the team

class _Team:
    def __init__(self, workers):
        self.ctl = np.zeros(_CTL_SIZE, np.int64)
        self.task = np.zeros(_TASK_SIZE, np.int64)
        self.args = np.zeros(_ARGS_SIZE, np.int64)
        self.gen = 0
        self.wake = threading.Event()
        self.lock = threading.Lock()           # one product at a time through the block
        self.spins = _calibrate_spins(SPIN_US)
        self.workers = [threading.Thread(target=self._work, name=f"nbgrad-blas-team-{i}", daemon=True)
                        for i in range(workers)]
        for t in self.workers:
            t.start()

    def _work(self):
        ctl, task, seen = self.ctl, self.task, 0
        while True:
            seen = _spin(ctl, task, seen, self.spins)
            if seen < 0:
                return
            self.wake.clear()
            ctl[_PARKED] = 1
            if (ctl[_CLAIM] >> 32) != seen or ctl[_STOP]:
                continue        # a product came (or a stop) while parking: back to spinning
            self.wake.wait()

    def next_generation(self):
        """The generation of the next task (its fields are to be written, then published by
        _run_product): spinning workers are let stay, a parked one is woken."""
        self.gen = (self.gen + 1) & 0x7FFFFFFF
        self.ctl[_YIELD] = 0
        if self.ctl[_PARKED]:
            self.ctl[_PARKED] = 0
            self.wake.set()
        return self.gen

    def stop(self):
        self.ctl[_STOP] = 1
        self.wake.set()
        for t in self.workers:
            t.join(timeout=5)


def _calibrate_spins(us):
    import time
    _relax_rounds(10)
    n = 20000
    t0 = time.perf_counter()
    _relax_rounds(n)
    per = max((time.perf_counter() - t0) / n, 1e-9)
    return max(int(us * 1e-6 / per), 1)


_team = None
_team_lock = threading.Lock()
# looked up once, by available(): "addresses" {dtype: cblas_?gemm address} or None when not
# found, "threads" NumPy's OpenBLAS thread-count controls (_blas_threads.controls("numpy"))
_GEMM = {}


def _forget_after_fork():
    global _team, _team_lock
    _team = None
    _team_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def _gemm_addresses():
    """{float32: address, float64: address} of NumPy's OpenBLAS's cblas gemms, or None."""
    from ._blas_threads import numpy_openblas_paths
    for path in numpy_openblas_paths():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        s = getattr(lib, "scipy_cblas_sgemm64_", None)
        d = getattr(lib, "scipy_cblas_dgemm64_", None)
        if s is not None and d is not None:
            addr = lambda f: ctypes.cast(f, ctypes.c_void_p).value
            return {np.dtype(np.float32): addr(s), np.dtype(np.float64): addr(d)}
    return None


def release():
    """Ask the team's spinning workers to park now (they wake with the next product)."""
    t = _team
    if t is not None and not t.ctl[_YIELD]:
        t.ctl[_YIELD] = 1


_F64 = np.dtype(np.float64)


def available():
    if "addresses" not in _GEMM:
        try:
            _GEMM["addresses"] = _gemm_addresses()
        except Exception:
            _GEMM["addresses"] = None
        from ._blas_threads import controls
        _GEMM["threads"] = controls("numpy")
    return _GEMM["addresses"] is not None


# Where a product's output may be cut so that its pieces, each its own gemm, give the whole
# gemm's bits: OpenBLAS's kernels compute an element by a loop that depends on where it falls
# in the kernel's unrolled blocks, and those differ by kernel.  Measured with NumPy's OpenBLAS
# 0.3.31: its Haswell sgemm (on a 2-core AMD EPYC with AVX2) keeps the bits only for rows cut on
# multiples of 12 and for no column cut at all; its dgemm for rows on multiples of 2 and nearly
# any column; the SkylakeX kernels (Intel Xeon, AVX-512) for both on multiples of 16, and on
# an AMD EPYC with AVX-512 its dgemm for rows on multiples of 12 and no column cut.  So each
# dtype's steps are found on this machine, once, by cutting probe products
# (_probe_steps); columns are cut on whole cache lines of the output as well.  Only cuts whose
# pieces both stay above _SMALL_KERNEL_MAX are tried, as _plan makes no others: a smaller
# piece would take OpenBLAS's small-matrix kernels (SkylakeX), whose order differs anyway.
_ROW_STEPS = (1, 2, 4, 8, 12, 16, 24, 32, 48, 64)
_COL_STEPS = (16, 32, 64, 128)
# (the odd shapes too: on an AMD EPYC with AVX-512, where OpenBLAS runs its SkylakeX kernels,
# dgemm keeps the bits of every row and 16-column cut of the even probes but of no column cut
# of a 97 x 300 x 333 product, nor of most row cuts that are not multiples of 12)
_PROBES = ((200, 256, 512), (136, 384, 320), (97, 300, 333), (75, 261, 301))


def _keeps_bits(whole, part, a, b, axis, step):
    """Whether cutting a @ b along axis (0 rows, 1 columns) at a multiple of step into two
    pieces, each above _SMALL_KERNEL_MAX multiply-adds, gives `whole`'s bits (the first and
    last such cuts and two between)."""
    length = whole.shape[axis]
    per_line = a.shape[1] * (b.shape[1] if axis == 0 else a.shape[0])     # multiply-adds per row / column
    cuts = [c for c in range(step, length, step) if min(c, length - c) * per_line > _SMALL_KERNEL_MAX]
    for cut in sorted({cuts[i] for i in (0, len(cuts) // 3, 2 * len(cuts) // 3, -1)} if cuts else ()):
        if axis == 0:
            pieces = np.vstack([part(a[:cut], b), part(a[cut:], b)])
        else:
            pieces = np.hstack([part(a, b[:, :cut]), part(a, b[:, cut:])])
        if not np.array_equal(pieces, whole):
            return False
    return True


def _probe_steps(dtype):
    """(row step, column step) for products of dtype on this machine, 0 where no step of the
    candidates keeps the bits, for every layout of the probes' operands."""
    ctl = _GEMM["threads"]
    before = ctl[0]() if ctl else 0
    if before > 1:
        ctl[1](1)       # (the pieces are one-thread gemms)
    try:
        rng = np.random.default_rng(0)
        cases = []          # (a, b, a @ b) of each probe, C and F operands
        for m, k, n in _PROBES:
            a = rng.standard_normal((m, k)).astype(dtype)
            b = rng.standard_normal((k, n)).astype(dtype)
            for x, y in ((a, b), (np.asfortranarray(a), np.asfortranarray(b))):
                cases.append((x, y, np.dot(x, y)))
        found = []
        for axis, steps in ((0, _ROW_STEPS), (1, _COL_STEPS)):
            found.append(next((step for step in steps
                               if all(_keeps_bits(whole, np.dot, x, y, axis, step) for x, y, whole in cases)), 0))
        return tuple(found)
    finally:
        if before > 1:
            ctl[1](before)


def cut_steps(dtype):
    """(row step, column step) of dtype's products (see _ROW_STEPS), probed on first use."""
    steps = _GEMM.get(dtype)
    if steps is None:
        with np.errstate(all="ignore"):
            steps = _GEMM[dtype] = _probe_steps(dtype)
    return steps


def team(threads):
    """The team with threads - 1 workers (made, or remade for another count, on demand)."""
    global _team
    t = _team
    if t is None or len(t.workers) != threads - 1:
        with _team_lock:
            t = _team
            if t is None or len(t.workers) != threads - 1:
                if t is not None:
                    t.stop()
                t = _team = _Team(threads - 1)
    return t


# OpenBLAS computes a product of at most 10**6 multiply-adds with its small-matrix kernels
# (SkylakeX and others), which sum in another order than its blocked gemm: every piece stays
# above that, so that the pieces give the whole product's bits
_SMALL_KERNEL_MAX = 10 ** 6


@_kernel
def _split_rows(m, n, b_c, pieces):
    """Whether a product with an (m, n) output is cut into blocks of rows (else of columns).
    Rows, unless that leaves each piece few of them: measured with benchmarks/gemm_split.py
    (both cuts of each product interleaved, NumPy's OpenBLAS 0.3.31 on a 2-core AMD EPYC),
    rows were 1.1-1.8x faster wherever pieces kept 128 rows or more (256x128x784 0.32 vs
    0.40 ms, 512^3 1.50 vs 1.91 ms, 1024x64x1024 0.98 vs 1.74 ms, 1024x128x128), and with
    64-row pieces where b is row-major and n <= 2m (the W4 step's 128x256x256 dx: 115 vs
    135 us); columns where the pieces keep fewer rows otherwise (64x1024x1024 0.97 vs 1.27 ms,
    the W4 step's forward 128x784x256 with the weight transposed: 350 vs 417 us)."""
    rows = m // pieces
    return rows >= 128 or m >= n or (rows >= 64 and b_c and n <= 2 * m)


@_kernel
def _plan(task, fn, f64, a, ta, b, tb, out, threads, row_step, col_step):
    """Write the product out = op(a) @ op(b) into task (a, b C-contiguous with their cblas
    transpose flags: _describe) with its pieces' bounds along one of the output's dims
    (_split_rows; rows only where columns may not be cut), on multiples of that dim's step
    (cut_steps: where a cut keeps the whole gemm's bits; 0, never), each piece above
    _SMALL_KERNEL_MAX multiply-adds.  The number of pieces; below 2 nothing is to be split."""
    m = a.shape[0] if ta == 111 else a.shape[1]
    k = a.shape[1] if ta == 111 else a.shape[0]
    n = b.shape[1] if tb == 111 else b.shape[0]
    b_c = tb == 111
    pieces = min(threads, MAX_PIECES)
    rows = col_step == 0 or (row_step != 0 and _split_rows(m, n, b_c, pieces))
    if rows and row_step == 0:
        return 1
    axis, length, step = (0, m, row_step) if rows else (1, n, col_step)
    per_element = (m * n * k) / length
    while pieces > 1:
        smallest = length
        prev = 0
        for p in range(1, pieces + 1):
            # (the multiple of step nearest to an even share)
            cut = length if p == pieces else min(length, (2 * length * p + step * pieces) // (2 * step * pieces) * step)
            task[_T_BOUNDS + p] = cut
            smallest = min(smallest, cut - prev)
            prev = cut
        if smallest * per_element > _SMALL_KERNEL_MAX:
            break
        pieces -= 1
    if pieces < 2:
        return pieces
    task[_T_BOUNDS] = 0
    task[_T_KIND], task[_T_FN], task[_T_F64] = _GEMM_TASK, fn, f64
    _describe(task, _T_TA, a, ta, b, tb, out)
    task[_T_AXIS], task[_T_PIECES] = axis, pieces
    return pieces


@_kernel
def _plan_pair(task, fn, f64, a1, ta1, b1, tb1, out1, a2, ta2, b2, tb2, out2):
    """Write the pair of products out1 = op(a1) @ op(b1), out2 = op(a2) @ op(b2) into task
    (_describe's arguments): two pieces."""
    task[_T_KIND], task[_T_FN], task[_T_F64] = _PAIR_TASK, fn, f64
    _describe(task, _T_TA, a1, ta1, b1, tb1, out1)
    _describe(task, _T_SECOND, a2, ta2, b2, tb2, out2)
    task[_T_BOUNDS], task[_T_BOUNDS + 1], task[_T_BOUNDS + 2] = 0, 1, 2
    task[_T_PIECES] = 2


def gemm(a, b, out, threads):
    """out = a @ b for float32/float64 matrices a (m, k), b (k, n), each C- or F-contiguous, out
    C-contiguous (m, n), all of one dtype, split into `threads` pieces.  False (nothing written)
    when the team cannot take it."""
    if not available():
        return False
    t = team(threads)
    if not t.lock.acquire(blocking=False):
        return False        # another thread's product holds the block: the caller's own gemm
    try:
        dtype = out.dtype
        if _plan(t.task, _GEMM["addresses"][dtype], dtype == _F64, *_row_major(a), *_row_major(b), out, threads,
                 *cut_steps(dtype)) < 2:
            return False
        _run_planned(t)
    finally:
        t.lock.release()
    return True


def _run_planned(t):
    """Run the product(s) planned in t's task (its lock held), NumPy's OpenBLAS at one thread
    meanwhile: each piece is a one-thread gemm."""
    ctl = _GEMM["threads"]
    before = ctl[0]() if ctl else 0
    if before > 1:
        ctl[1](1)
    try:
        _run_product(t.ctl, t.task, t.next_generation())
    finally:
        if before > 1:
            ctl[1](before)


def gemm_pair(a1, b1, out1, a2, b2, out2, threads):
    """out1 = a1 @ b1 and out2 = a2 @ b2 (gemm's operands, all of one dtype) at once, each
    whole on one thread: the caller takes the first, a spinning worker the second (or the
    caller both, in order, when no worker comes).  A linear layer's two gradients are such a
    pair, of equal size: two one-thread gemms side by side, none of a split's duplicated
    packing (the W4 step's 128x256x256 layer: linear_backward 209 vs 232 us with each
    product split in turn), the bits of one gemm each.  threads: nbgrad's thread count (2 or
    more; the workers beyond the first find nothing to claim).  False (nothing written) when
    the team cannot take it."""
    if not available():
        return False
    t = team(threads)
    if not t.lock.acquire(blocking=False):
        return False
    try:
        dtype = out1.dtype
        _plan_pair(t.task, _GEMM["addresses"][dtype], dtype == _F64, *_row_major(a1), *_row_major(b1), out1,
                   *_row_major(a2), *_row_major(b2), out2)
        _run_planned(t)
    finally:
        t.lock.release()
    return True


@intrinsic
def _address(typingctx, x):
    """The address of array x's first element (what x.ctypes.data gives, without its object)."""
    if not isinstance(x, types.Array):
        return None

    def codegen(context, builder, sig, args):
        return builder.ptrtoint(context.make_array(sig.args[0])(context, builder, args[0]).data, ir.IntType(64))
    return types.int64(x), codegen


def _store_addresses(block, arrays, offsets):
    """block[i] = the address of element offsets[i] of arrays[i], for each i.  (Its Python
    meaning, for NUMBA_DISABLE_JIT; compiled code takes the overload below.)"""
    for i, x in enumerate(arrays):
        block[i] = x.ctypes.data + offsets[i] * x.itemsize


@overload(_store_addresses)
def _store_addresses_impl(block, arrays, offsets):
    # one statement per array at a constant index, generated for the tuple's length: a tuple of
    # mixed array types compiles without literal_unroll's loop versioning (a third less per new
    # tuple of types on a cold cache)
    lines = "".join(f"    block[{i}] = _address(arrays[{i}]) + offsets[{i}] * arrays[{i}].itemsize\n"
                    for i in range(len(arrays)))
    scope = {"_address": _address, "__name__": __name__}
    exec("def store(block, arrays, offsets):\n" + lines + "    return 0\n", scope)
    return scope["store"]


@_kernel
def _fill_block(block, arrays, offsets):
    """The argument block of a native call: the only part of one that depends on its arrays'
    types, compiled apart from _run_call so that each new tuple of array types compiles these
    few stores alone, not the claiming and gemm code _run_call inlines."""
    _store_addresses(block, arrays, offsets)


@_kernel
def _run_call(ctl, task, block, gen, fn, n, pieces, align):
    """The caller's side of a native call: fn(block's address, lo, hi) over `pieces` ranges of
    [0, n) cut on multiples of align (the block filled by _fill_block)."""
    task[_T_KIND], task[_T_FN], task[_T_ARGS] = _CALL_TASK, fn, block.ctypes.data
    task[_T_BOUNDS] = 0
    for p in range(1, pieces):
        task[_T_BOUNDS + p] = min(n, (n * p // pieces) // align * align)
    task[_T_BOUNDS + pieces] = n
    task[_T_PIECES] = pieces
    _run_product(ctl, task, gen)


def call(fn, n, pieces, align, arrays, offsets):
    """fn(args, lo, hi) over `pieces` (2..MAX_PIECES) ranges [lo, hi) of [0, n), claimed by this
    thread and the team's spinning workers.  fn is the address of a compiled C function
    void(int64, int64, int64) that needs no GIL; its first argument is the address of an int64
    block holding, for each of `arrays` (a tuple of at most _ARGS_SIZE arrays, each held alive
    by the caller), the address of its element at the same place of `offsets`.  False (nothing
    called) when the team cannot take it now (its block busy with another thread's call): the
    caller then runs the work itself."""
    if len(arrays) > _ARGS_SIZE or len(offsets) != len(arrays):
        raise ValueError(f"a native call takes at most {_ARGS_SIZE} arrays, each with its offset")
    t = team(_threads.num_threads())
    if not t.lock.acquire(blocking=False):
        return False
    try:
        _fill_block(t.args, arrays, offsets)
        _run_call(t.ctl, t.task, t.args, t.next_generation(), fn, n, min(pieces, MAX_PIECES), align)
    finally:
        t.lock.release()
    return True
