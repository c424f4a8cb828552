"""Fused elementwise kernels on the GPU: the CPU's program format and code generator
(nbgrad/backends/cpu/fused.py), emitted as a grid-stride `cuda.jit` kernel.

The source is compiled in memory (exec), one kernel per (program, outputs,
input kinds, dtype) per process: no on-disk cache, as the other CUDA kernels
by default.  Transcendentals are the CUDA backend's own twins (libdevice, or
NumPy under the simulator).
"""
import numpy as np
from numba import cuda

from ..cpu.fused import EXPRESSIONS, KernelCache, body  # plain Python: the code generator
from ._device import as_device, device_array, device_fn, jit, launch
from .elementwise import _BINARY_FNS, _TERNARY_FNS, _UNARY_FNS

_CALLED = frozenset({"exp", "log", "tanh", "sigmoid", "sqrt", "sin", "cos"})   # EXPRESSIONS' {name}(...)


def _build(program, outputs, kinds, dtype):
    used = {ins[0] for ins in program if ins[0] not in EXPRESSIONS or ins[0] in _CALLED} - {"input", "const"}
    functions = {op: f"f_{op}" for op in used}
    hoisted, loop, outs = body(program, outputs, kinds, functions, load="b{k}[o{k} + i]")
    params = [p for k in range(len(kinds)) for p in (f"b{k}", f"o{k}")]
    params += [f"out{j}" for j in range(len(outputs))] + ["n"]
    lines = [f"def kernel({', '.join(params)}):", "    _Z = _T(0.0)", "    _O = _T(1.0)"]
    lines += [f"    {h}" for h in hoisted]
    lines.append("    for i in range(cuda.grid(1), n, cuda.gridsize(1)):")
    lines += [f"        {s}" for s in loop]
    lines += [f"        out{j}[i] = {name}" for j, name in enumerate(outs)]
    namespace = {"cuda": cuda, "_T": getattr(np, dtype)}
    namespace.update({f"f_{op}": device_fn(_UNARY_FNS.get(op) or _BINARY_FNS.get(op) or _TERNARY_FNS[op])
                      for op in used})
    exec("\n".join(lines) + "\n", namespace)
    return jit(namespace["kernel"])


_kernels = KernelCache()


def fused_elementwise(program, outputs, inputs, n, dtype, out=None):
    """As the CPU's: evaluate program over n elements, one new buffer per output (or `out`)."""
    dtype = np.dtype(dtype)
    kinds = tuple(kind for _, _, kind in inputs)
    outs = [out] if out is not None else [device_array(n, dtype) for _ in outputs]
    if n == 0:
        return outs
    kernel = _kernels.get((tuple(program), tuple(outputs), kinds, dtype.name), _build)
    args = []
    for buf, off, _ in inputs:
        args += [as_device(buf), off]
    blocks, threads = launch(n)
    kernel[blocks, threads](*args, *outs, n)
    return outs

