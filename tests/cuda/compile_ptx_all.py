"""Compile every CUDA kernel of nbgrad for a real architecture (sm_90) without a GPU.

Run as a script in a process WITHOUT NUMBA_ENABLE_CUDASIM (tests/cuda/test_compile_ptx.py
does so, in two processes side by side: `--shard 0/2` and `--shard 1/2` compile every
other signature each); `--generated SPEC` compiles nbgrad.compile's generated kernels instead.  Needs NVIDIA's compiler from `pip install "numba-cuda[cu13]"`, not a GPU.
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
    from nbgrad.backends._shared.copy import conversion
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
        contiguous, strided = C._COPIES[conversion(np.dtype(nptype[s]), np.dtype(nptype[d]))]
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
    for op, x, acc, o in [("sum", float32, float64, float32), ("sum", float64, float64, float64),
                          ("sum", int64, int64, int64), ("sum", boolean, int64, int64), ("mean", float32, float64, float32),
                          ("prod", float32, float64, float32), ("max", float32, float32, float32),
                          ("min", int64, int64, int64), ("all", boolean, boolean, boolean), ("any", float32, boolean, boolean)]:
        step, finalize, _ = R.COMBINE[op]
        add(f"reduce columns {op} {x}->{o}", R.make_reduce_columns(step, finalize, nptype[acc]), _arr(x), int64, geom,
            int64, int64, int64, int64, acc, int64, int64, int64, int64, int64, _arr(o))
    for dt in (float32, float64):
        add(f"var {dt}", R._var_rows, _arr(dt), int64, geom, int64, int64, int64, float64, int64, _arr(dt))
        add(f"logsumexp {dt}", R._logsumexp_rows, _arr(dt), int64, geom, int64, int64, int64, int64, _arr(dt))
        add(f"softmax {dt}", R._softmax_rows, _arr(dt), int64, _arr(dt), geom, int64, int64, int64, int64, boolean,
            int64)
    for dt in (float32, float64, int64, boolean):
        add(f"arg {dt}", R.make_arg_rows(nptype[dt]), _arr(dt), int64, geom, int64, int64, int64, boolean, int64,
            _arr(dt), _arr(int64))

    # matmul: every tile configuration
    from nbgrad.backends.cuda import matmul_tiles as MT
    for tile in MT.TILES.values():
        for dt in (float32, float64, int64):
            add(f"matmul {tile.name} {dt}", L.make_matmul(nptype[dt], tile), _arr(dt), _arr(int64), int64, int64,
                _arr(dt), _arr(int64), int64, int64, _arr(dt), int64, int64, int64)

    # indexing
    for dt in (float32, float64, int64, int32, boolean, uint8):
        add(f"take {dt}", I._take, _arr(dt), _arr(int64), _arr(dt), int64)
        add(f"put {dt}", I._put, _arr(dt), _arr(int64), _arr(dt), int64)
    for dt in (float32, float64, int64, int32):
        add(f"put accumulate atomic {dt}", I._put_accumulate_atomic, _arr(dt), _arr(int64), _arr(dt), int64)
    for dt in (int16, uint8):
        add(f"put accumulate serial {dt}", I._put_accumulate_serial, _arr(dt), _arr(int64), _arr(dt), int64)
    add("put or bool", I._put_or, _arr(boolean), _arr(int64), _arr(boolean), int64)
    for dt in (float32, float64, int64, int32, boolean, uint8):
        add(f"put reduce serial {dt}", I._put_reduce_serial, _arr(dt), _arr(int64), _arr(dt), int64, int64)
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
    add("ce stats' bad flag", LK._flag_bad, _arr(int64), _arr(boolean))
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

    # grid_sample (strides in int64 device arrays; P, K: the dtype's geometry rows and constants)
    from nbgrad.backends.cuda import grid_sample as GS
    for dt in (float32, float64):
        x = _arr(dt)
        add(f"grid sample {dt}", GS._forward, x, int64, geom, int64, int64, int64, x, int64, geom, int64, int64,
            int64, int64, int64, boolean, x, x, boolean, x)
        add(f"grid sample grid grad {dt}", GS._grid_grad, x, int64, geom, x, int64, geom, int64, int64, int64, x,
            int64, geom, int64, int64, int64, int64, int64, boolean, x, x, x)
        add(f"grid sample input grad {dt}", GS._input_grad, x, int64, geom, int64, int64, int64, x, int64, geom,
            int64, int64, int64, int64, int64, boolean, x, x, int64, boolean, x)

    # convolution and pooling (geometry rows in int64 device arrays; `zero`: a one-element array of the dtype)
    from nbgrad.backends.cuda import conv as CV, pooling as P
    for dt in (float32, float64):
        x = _arr(dt)
        add(f"conv forward {dt}", CV._forward, x, int64, x, int64, x, int64, boolean, x, int64, geom, x)
        add(f"conv grad input {dt}", CV._grad_input, x, int64, x, int64, x, int64, geom, x)
        add(f"conv grad weight {dt}", CV._grad_weight, x, int64, x, int64, x, int64, geom, x)
        add(f"conv grad bias {dt}", CV._grad_bias, x, int64, x, int64, int64, int64, x)
        add(f"max pool {dt}", P._max_pool, x, int64, int64, geom, x, x, _arr(int64))
        add(f"max pool backward {dt}", P._max_pool_backward, x, int64, _arr(int64), int64, int64, int64, int64, x)
        add(f"avg pool {dt}", P._avg_pool, x, int64, int64, geom, boolean, boolean, int64, x, x)
        add(f"avg pool backward {dt}", P._avg_pool_backward, x, int64, int64, geom, boolean, boolean, int64, x, x)

    # nbgrad.fuse's generated kernels (fused.py: the source is built at run time): one program using
    # every expression and every called function, with a vector and a scalar input
    from nbgrad.backends.cpu.fused import EXPRESSIONS
    from nbgrad.backends.cuda import fused as FU
    prog = [("input", 0), ("input", 1), ("const", 0.5)]
    for op in sorted(set(EXPRESSIONS) | FU._CALLED):
        if op == "where":
            prog.append(("where", len(prog) - 1, 0, 1))   # the last mask picks between the inputs
        elif op in ("pow", "powt"):
            prog.append((op, 0, 2))
        elif op in ("add", "sub", "mul", "div", "lt", "le", "gt", "ge", "eq", "ne"):
            prog.append((op, len(prog) - 1, 1))
        else:
            prog.append((op, len(prog) - 1))
    prog.append(("fma", len(prog) - 1, 1, 2))            # the ternary twin (elementwise._TERNARY_FNS)
    for dt in (float32, float64):
        kernel = FU._build(tuple(prog), (len(prog) - 1, 3), ("v", "s"), str(dt))
        add(f"fused program {dt}", kernel, _arr(dt), int64, _arr(dt), int64, _arr(dt), _arr(dt), int64)
    return out


def kernel_definitions():
    """{(file, first line): name} of every kernel defined in nbgrad/backends/cuda (a function under a
    `jit`/`cuda.jit` decorator that is not a device function), read from the source itself, so a new
    kernel without a signature above fails this check instead of going unchecked."""
    import ast
    import glob
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "nbgrad", "backends", "cuda")
    found = {}
    for path in sorted(glob.glob(os.path.join(root, "*.py"))):
        for node in ast.walk(ast.parse(open(path).read())):
            if isinstance(node, ast.FunctionDef):
                for deco in node.decorator_list:
                    text = ast.unparse(deco)
                    if "jit" in text and "device=True" not in text:
                        first = min(d.lineno for d in node.decorator_list)
                        found[(os.path.realpath(path), first)] = node.name
    return found


def generated_signatures(spec_path):
    """(label, python function, argument types) of the kernels in nbgrad.compile's generated modules:
    spec_path holds {module file: {kernel name: [argument, ...]}} recorded from launches under the
    simulator (tests/cuda/test_compile_ptx.py), an argument being ["array", dtype, ndim] or a scalar
    type's name.  Each module is imported from its file here, without the simulator."""
    import importlib.util
    import json
    import numba
    import numpy as np
    from numba.core import types
    out = []
    with open(spec_path) as f:
        spec = json.load(f)
    for n, (path, kernels) in enumerate(sorted(spec.items())):
        loader = importlib.util.spec_from_file_location(f"_ptx_generated_{n}", path)
        module = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(module)
        for name, args in sorted(kernels.items()):
            argtypes = tuple(types.Array(numba.from_dtype(np.dtype(a[1])), a[2], "C") if isinstance(a, list)
                             else getattr(types, a) for a in args)
            out.append((f"{os.path.basename(path)}:{name}", getattr(module, name).py_func, argtypes))
    return out


def main():
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        print("run without NUMBA_ENABLE_CUDASIM: this checks real-GPU compilation")
        return 2
    os.environ["NBGRAD_CUDA_COMPILE_ONLY"] = "1"
    from numba import cuda
    _pin_compute_capability()
    failures = []
    if len(sys.argv) == 3 and sys.argv[1] == "--generated":
        sigs = generated_signatures(sys.argv[2])
        for label, fn, args in sigs:
            try:
                cuda.compile_ptx(fn, args, cc=CC)
            except Exception as exc:
                failures.append(label)
                print(f"FAIL {label}: {type(exc).__name__}: {str(exc).strip().splitlines()[:1]}")
        print(f"compiled {len(sigs) - len(failures)}/{len(sigs)} generated kernels for sm_{CC[0]}{CC[1]}")
        return 1 if failures or not sigs else 0
    sigs = signatures()
    shard, shards = 0, 1
    if len(sys.argv) == 3 and sys.argv[1] == "--shard":       # "--shard K/N": every N-th signature from K
        shard, shards = (int(v) for v in sys.argv[2].split("/"))
    for label, fn, args in sigs[shard::shards]:
        try:
            cuda.compile_ptx(fn, args, cc=CC)
        except Exception as exc:  # report every failure, not only the first
            failures.append(label)
            first = str(exc).strip().splitlines()
            print(f"FAIL {label}: {type(exc).__name__}: {first[0] if first else ''}")
            if os.environ.get("NBGRAD_PTX_VERBOSE"):
                traceback.print_exc()
    listed = {(os.path.realpath(fn.__code__.co_filename), fn.__code__.co_firstlineno) for _, fn, _ in sigs}
    definitions = kernel_definitions()
    unlisted = {key: name for key, name in definitions.items() if key not in listed}
    for (path, line), name in sorted(unlisted.items()):
        print(f"UNLISTED {os.path.relpath(path)}:{line} {name}: a kernel with no signature in this script")
    n = len(sigs[shard::shards])
    print(f"compiled {n - len(failures)}/{n} kernel signatures for sm_{CC[0]}{CC[1]}"
          f"{f' (shard {shard}/{shards})' if shards > 1 else ''}"
          f" ({len(definitions) - len(unlisted)}/{len(definitions)} kernel definitions covered)")
    failures += list(unlisted.values())
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    sys.exit(main())
