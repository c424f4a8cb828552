"""The calling thread's SSE control register (MXCSR): flush-to-zero and denormals-are-zero,
for nbgrad.set_flush_denormal (PyTorch's at::cpu::set_flush_denormal).

x86-64 only: the register is read and written by LLVM's stmxcsr / ldmxcsr intrinsics in a
jitted function (Numba leaves MXCSR as a compiled call set it, so the mode holds for every
kernel, NumPy call and Python float operation the thread runs afterwards).  Threads keep
their own register: nbgrad's worker threads (a split kernel's other pieces, the BLAS team)
are not changed, as PyTorch's intra-op threads are not.
"""
import platform

from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

DENORMALS_ZERO = 0x0040
FLUSH_ZERO = 0x8000

SUPPORTED = platform.machine().lower() in ("x86_64", "amd64") and not config.DISABLE_JIT


def _call(builder, name, slot):
    byte_ptr = ir.IntType(8).as_pointer()
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [byte_ptr]), name)
    builder.call(fn, [builder.bitcast(slot, byte_ptr)])


@intrinsic
def _stmxcsr(typingctx):
    def codegen(context, builder, sig, args):
        slot = cgutils.alloca_once(builder, ir.IntType(32))
        _call(builder, "llvm.x86.sse.stmxcsr", slot)
        return builder.load(slot)
    return types.uint32(), codegen


@intrinsic
def _ldmxcsr(typingctx, value):
    def codegen(context, builder, sig, args):
        slot = cgutils.alloca_once_value(builder, args[0])
        _call(builder, "llvm.x86.sse.ldmxcsr", slot)
        return context.get_dummy_value()
    return types.void(types.uint32), codegen


# (module-level and closing over nothing: Numba's cache keys a closure by its pickled cells,
# which differ per process, and would add an entry for every process)
@njit(cache=True)
def _get_csr():
    return _stmxcsr()


@njit(cache=True)
def _set_csr(value):
    _ldmxcsr(value)


def set_flush_denormal(on):
    """Flush denormal results to zero and read denormal inputs as zero on this thread (on), or
    keep IEEE denormals (off).  False where the CPU or build has no such mode."""
    if not SUPPORTED:
        return False
    csr = int(_get_csr()) & ~(DENORMALS_ZERO | FLUSH_ZERO)
    if on:
        csr |= DENORMALS_ZERO | FLUSH_ZERO
    _set_csr(csr)
    return True

