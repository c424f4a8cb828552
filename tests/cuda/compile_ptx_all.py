"""Compile every CUDA kernel of nbgrad for a real architecture (sm_90) without a GPU.

Run as a script in a process WITHOUT NUMBA_ENABLE_CUDASIM (tests/cuda/test_compile_ptx.py
does so); needs NVIDIA's compiler from `pip install "numba-cuda[cu13]"`, not a GPU.
The simulator accepts code a GPU rejects (numpy ufuncs in device code, Python
objects, bad types); this catches those.  Prints one line per failure and a
summary; exits 1 if anything failed.

Without a GPU there is no "current device", but numba-cuda asks the current
device's compute capability when it types a call to a device function; the
script pins that answer to (9, 0), the architecture it compiles for.
"""
import os
import sys
import types as _pytypes
import traceback

CC = (9, 0)


def _pin_compute_capability():
    import numba.cuda.dispatcher as dispatcher
    dispatcher.get_current_device = lambda: _pytypes.SimpleNamespace(compute_capability=CC)


def _arr(dt):
    return dt[::1]


def signatures():
    """(label, python function, argument types) for every kernel and representative dtypes."""
    from numba import boolean, float32, float64, int16, int32, int64, uint8, uint64
    from numba.core.types import Tuple
    from nbgrad.backends.cuda import (elementwise as E, indexing as I, linalg as L, loss_kernels as LK,
                                      memory as M, optim_kernels as O, reduction as R, sampling as S,
                                      scan as SC, sorting as SO, strided_copy as C)
    import numpy as np

    geom = int64[::1]
    out = []

    def add(label, kernel, *args):
        out.append((label, kernel.py_func, tuple(args)))

    # copy with cast, fill, arange
    nptype = {float32: np.float32, float64: np.float64, int64: np.int64, int32: np.int32, boolean: np.bool_,
              uint8: np.uint8, int16: np.int16}
    for s, d in [(float32, float32), (float64, float32), (float32, int64), (int64, float32), (boolean, float32),
                 (float32, boolean), (int64, boolean), (uint8, int64), (float64, float64), (int64, int64),
                 (boolean, boolean)]:
        contiguous, strided = C._COPIES[C.conversion(np.dtype(nptype[s]), np.dtype(nptype[d]))]
        add(f"copy {s}->{d}", contiguous, _arr(s), int64, _arr(d), int64, int64)
        add(f"copy strided {s}->{d}", strided, _arr(s), int64, _arr(d), int64, int64, geom, int64)
    for d in (float32, float64, int64, int32, boolean, uint8):
        add(f"fill {d}", C._fill_contiguous, _arr(d), int64, int64, d)
        add(f"fill strided {d}", C._fill_strided, _arr(d), int64, int64, geom, int64, d)
    for d in (float32, float64):
        add(f"arange {d}", M._arange_float, _arr(d), int64, float64, float64)
    for d in (int64, int32):
        add(f"arange {d}", M._arange_int, _arr(d), int64, int64, int64)

    # elementwise
    bool_out = {"logical_not", "isnan", "isinf", "isfinite"}
    for op in sorted(E.UNARY_OPS):
        for dt in (float32, float64):
            if op == "bitwise_not":
                continue
            o = boolean if op in bool_out else dt
            contiguous, strided = E.make_unary(E._UNARY_FNS[op])
            add(f"unary {op} {dt}", contiguous, _arr(dt), int64, _arr(o), int64)
            add(f"unary strided {op} {dt}", strided, _arr(dt), int64, _arr(o), int64, geom, int64)
        if op in ("neg", "abs", "sign", "square", "relu", "bitwise_not", "logical_not"):
            o = boolean if op in bool_out else int64
            contiguous, _ = E.make_unary(E._UNARY_FNS[op])
            add(f"unary {op} int64", contiguous, _arr(int64), int64, _arr(o), int64)
    cmp = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}
    bitwise = {"bitwise_and", "bitwise_or", "bitwise_xor"}
    float_only = {"atan2", "tanh_backward", "sigmoid_backward", "relu_backward", "div"}
    for op in sorted(E.BINARY_OPS):
        dts = [] if op in bitwise else [float32, float64]
        if op not in float_only:
            dts.append(int64)
        if op in bitwise or op in cmp:
            dts.append(boolean)
        for dt in dts:
            o = boolean if op in cmp else dt
            kernels = E.make_binary(E._BINARY_FNS[op])
            for name, k in zip(("contiguous", "scalar_a", "scalar_b"), kernels[:3]):
                add(f"binary {name} {op} {dt}", k, _arr(dt), int64, _arr(dt), int64, _arr(o), int64)
            add(f"binary strided {op} {dt}", kernels[3], _arr(dt), int64, _arr(dt), int64, _arr(o), int64, geom,
                int64)
    for dt in (float32, float64, int64, boolean):
        add(f"where {dt}", E._where_contiguous, _arr(boolean), int64, _arr(dt), int64, _arr(dt), int64, _arr(dt),
            int64)
        add(f"where strided {dt}", E._where_strided, _arr(boolean), int64, _arr(dt), int64, _arr(dt), int64,
            _arr(dt), int64, geom, int64)

    for dt in (float32, float64):
        add(f"mul_backward {dt}", E._mul_backward_contiguous, _arr(dt), int64, _arr(dt), int64, _arr(dt), int64,
            _arr(dt), _arr(dt), int64)

    # reductions
    for op, x, acc, o in [("sum", float32, float64, float32), ("sum", float64, float64, float64),
                          ("sum", int64, int64, int64), ("mean", float32, float64, float32),
                          ("prod", float32, float64, float32), ("prod", int64, int64, int64),
                          ("max", float32, float32, float32), ("min", int64, int64, int64),
                          ("max", boolean, boolean, boolean), ("all", boolean, boolean, boolean),
                          ("any", float32, boolean, boolean), ("sum", float64, float64, float32)]:
        step, finalize, _ = R.COMBINE[op]
        k = R.make_reduce(step, finalize, nptype[acc])
        add(f"reduce {op} {x}->{o}", k, _arr(x), int64, geom, int64, int64, int64, acc, int64, int64, int64,
            int64, _arr(o))
    for dt in (float32, float64):
        add(f"var {dt}", R._var_rows, _arr(dt), int64, geom, int64, int64, int64, float64, int64, _arr(dt))
        add(f"logsumexp {dt}", R._logsumexp_rows, _arr(dt), int64, geom, int64, int64, int64, int64, _arr(dt))
        add(f"softmax {dt}", R._softmax_rows, _arr(dt), int64, _arr(dt), geom, int64, int64, int64, int64, boolean,
            int64)
    for dt in (float32, float64, int64, boolean):
        add(f"arg {dt}", R.make_arg_rows(nptype[dt]), _arr(dt), int64, geom, int64, int64, int64, boolean, int64,
            _arr(dt), _arr(int64))

    # matmul
    for dt in (float32, float64, int64):
        add(f"matmul {dt}", L.make_matmul(nptype[dt]), _arr(dt), _arr(int64), int64, int64, _arr(dt), _arr(int64),
            int64, int64, _arr(dt), int64, int64, int64)

    # indexing
    for dt in (float32, float64, int64, int32, boolean, uint8):
        add(f"take {dt}", I._take, _arr(dt), _arr(int64), _arr(dt), int64)
        add(f"put {dt}", I._put, _arr(dt), _arr(int64), _arr(dt), int64)
    for dt in (float32, float64, int64, int32):
        add(f"put accumulate atomic {dt}", I._put_accumulate_atomic, _arr(dt), _arr(int64), _arr(dt), int64)
    for dt in (int16, uint8):
        add(f"put accumulate serial {dt}", I._put_accumulate_serial, _arr(dt), _arr(int64), _arr(dt), int64)
    add("put or bool", I._put_or, _arr(boolean), _arr(int64), _arr(boolean), int64)
    for dt in (float32, int64, boolean):
        add(f"nonzero count {dt}", I._count_chunks, _arr(dt), int64, int64, _arr(int64), int64)
        add(f"nonzero write {dt}", I._write_chunks, _arr(dt), int64, int64, _arr(int64), int64, _arr(int64), int64,
            _arr(int64))

    # sort
    for dt in (float32, float64, int64, boolean):
        add(f"sort rows {dt}", SO._sort_rows, _arr(dt), int64, int64, boolean, _arr(dt), _arr(int64))
    for dt, acc in ((float32, float64), (float64, float64), (int64, int64), (int32, int64), (uint8, int64)):
        add(f"scan columns {dt}", SC._scan_columns, _arr(dt), int64, int64, int64, boolean, _arr(acc))

    # random
    for dt in (float32, float64):
        add(f"uniform {dt}", S._uniform_kernel, _arr(dt), int64, uint64, uint64, float64, float64, float64)
        add(f"normal {dt}", S._normal_kernel, _arr(dt), int64, uint64, uint64, float64, float64)
    for dt in (int64, int32):
        add(f"randint {dt}", S._randint_kernel, _arr(dt), int64, uint64, uint64, int64, float64)
    add("randperm keys", S._keys_kernel, _arr(float64), int64, uint64, uint64)

    # losses and optimizers
    f64 = _arr(float64)
    for dt in (float32, float64):
        x = _arr(dt)
        add(f"ce forward {dt}", LK._ce_forward, x, int64, int64, _arr(int64), x, boolean, int64, float64, f64, f64,
            f64, _arr(int64))
        add(f"ce backward {dt}", LK._ce_backward, x, int64, int64, f64, _arr(int64), x, boolean, int64, float64,
            f64, f64, x)
        add(f"nll forward {dt}", LK._nll_forward, x, int64, int64, _arr(int64), x, boolean, int64, f64, f64,
            _arr(int64))
        add(f"nll backward {dt}", LK._nll_backward, int64, int64, _arr(int64), x, boolean, int64, f64, x)
        add(f"mse forward {dt}", LK._mse_forward, x, x, f64, int64)
        add(f"mse backward {dt}", LK._mse_backward, x, x, f64, boolean, x, int64)
        add(f"bce forward {dt}", LK._bce_forward, x, x, x, x, boolean, f64, int64)
        add(f"bce backward {dt}", LK._bce_backward, x, x, x, x, boolean, f64, boolean, x, x, int64)
        add(f"sgd {dt}", O._sgd, x, x, x, int64,
            Tuple((boolean, dt, dt, dt, dt, boolean, boolean, boolean, boolean, boolean)))
        add(f"adam {dt}", O._adam, x, x, x, x, x, int64,
            Tuple((dt, dt, dt, dt, dt, dt, dt, dt, dt, boolean, boolean, boolean, boolean)))

    # interpolation along one dim (F.interpolate)
    from nbgrad.backends.cuda import upsample as U
    idx = _arr(int64)
    for dt in (float32, float64):
        x = _arr(dt)
        add(f"interp pass {dt}", U._forward, x, int64, int64, int64, idx, x, int64, int64, boolean, x, int64)
        add(f"interp pass backward {dt}", U._backward, x, int64, int64, int64, idx, x, int64, int64, boolean, x,
            int64, x)
    return out


def main():
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        print("run without NUMBA_ENABLE_CUDASIM: this checks real-GPU compilation")
        return 2
    os.environ["NBGRAD_CUDA_COMPILE_ONLY"] = "1"
    from numba import cuda
    _pin_compute_capability()
    failures = []
    sigs = signatures()
    for label, fn, args in sigs:
        try:
            cuda.compile_ptx(fn, args, cc=CC)
        except Exception as exc:  # report every failure, not only the first
            failures.append(label)
            first = str(exc).strip().splitlines()
            print(f"FAIL {label}: {type(exc).__name__}: {first[0] if first else ''}")
            if os.environ.get("NBGRAD_PTX_VERBOSE"):
                traceback.print_exc()
    print(f"compiled {len(sigs) - len(failures)}/{len(sigs)} kernel signatures for sm_{CC[0]}{CC[1]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    sys.exit(main())
