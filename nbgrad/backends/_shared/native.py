"""Native entry points: kernels that a thread with no GIL calls through an address.

The CPU backend's team of spinning workers (backends/cpu/_team.py) runs pieces
of one call in compiled code, never taking the GIL, so it cannot call a Numba
dispatcher: it calls a C function `void f(int64 args, int64 lo, int64 hi)`
through its address, with `args` the address of an int64 block holding the
operands' addresses.  A module makes such a function with
`_shared.cpu_cfunc` (cached on disk and keyed by the helpers' digest, as
`cpu_kernel`), and in it turns addresses back into arrays with
`numba.carray(address_as(addr, np.float32), n)`.  CPU only (an LLVM cast).
"""
from numba import types
from numba.extending import intrinsic

SIGNATURE = types.void(types.int64, types.int64, types.int64)


@intrinsic
def address_as(typingctx, address, dtype):
    """The int64 `address` as a pointer to elements of `dtype` (a NumPy scalar type, e.g. np.float32)."""
    if not isinstance(dtype, types.NumberClass) and not isinstance(dtype, types.DType):
        return None
    element = dtype.instance_type if isinstance(dtype, types.NumberClass) else dtype.dtype
    pointer = types.CPointer(element)

    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], context.get_value_type(pointer))
    return pointer(types.int64, dtype), codegen
