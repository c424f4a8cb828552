"""bfloat16 as PyTorch's CPU computes it: stored as 16-bit words, computed in float32.

NumPy has no bfloat16 type (and nbgrad depends on no package that adds one), so a bfloat16
buffer is a uint16 array of the bit patterns; no other nbgrad dtype is stored as uint16, so
a buffer's dtype says it holds bfloat16.  A bfloat16 word is the upper half of a float32's,
so widening is exact; narrowing rounds to nearest even, as c10::BFloat16's
round_to_nearest_even does (ties to the even word; finite values past the largest one
round to infinity; subnormals kept).  A Python number is converted through float32 first,
as PyTorch converts a double to BFloat16 (two roundings).

Every backend installs bfloat16 over its float16 wrappers with `_half.install` and
`BFLOAT16` (the format: storage, scalar conversions, uniform's draw): the
backend's float32 kernels compute, each result is rounded once, moves run on the bits --
PyTorch's opmath for BFloat16 as for Half.

Departure from PyTorch: a NaN narrowed here is always 0x7FC0 (c10's scalar conversion);
PyTorch's vectorised conversions write 0xFFFF instead, so a NaN's bits (never its NaN-ness)
may differ from PyTorch's.
"""
import numpy as np

U16 = np.dtype(np.uint16)
_QUIET_NAN = 0x7FC0


def widen_host(words):
    """A host uint16 array of bfloat16 words -> the float32 values (exact)."""
    return (np.asarray(words, U16).astype(np.uint32) << 16).view(np.float32)


def narrow_host(values):
    """Host float32 values -> uint16 bfloat16 words, rounded to nearest even (NaN: 0x7FC0).
    Other float dtypes are converted to float32 first, as PyTorch converts them."""
    with np.errstate(over="ignore", invalid="ignore"):
        f = np.ascontiguousarray(values, dtype=np.float32)
    u = f.view(np.uint32)
    words = ((u + (((u >> 16) & 1) + 0x7FFF)) >> 16).astype(U16)
    words[np.isnan(f)] = _QUIET_NAN
    return words


def bits(value):
    """A Python number's bfloat16 bit pattern (as a signed 16-bit int, for int16 fills)."""
    w = int(narrow_host(np.array([float(value)], np.float64))[0])
    return w - 0x10000 if w >= 0x8000 else w


def value(x):
    """A Python number rounded to bfloat16 (through float32, as PyTorch converts), as a float."""
    return float(widen_host(narrow_host(np.array([float(x)], np.float64)))[0])


def round_array(values):
    """Values (any float array) rounded to bfloat16 through float32, as float32."""
    return widen_host(narrow_host(values))


class BFloat16Format:
    """_half.install's description of bfloat16 (see _half.Float16Format)."""
    storage = U16
    digits = None                # uniform: PyTorch 2.13 draws a float32 and rounds it once
    sigmoid_backward_per_op = False     # (float32, rounded once: PyTorch's BFloat16 kernel)
    bits = staticmethod(bits)
    value = staticmethod(value)
    scalar = staticmethod(value)

    @staticmethod
    def host_rows(rows):
        return round_array(rows).astype(np.float64)


BFLOAT16 = BFloat16Format()


def install_cpu(ns):
    """bfloat16 for the CPU backend's namespace (after its float16 wrappers)."""
    from ._half import install
    install(ns, widen_host, narrow_host, lambda buf, dtype: buf.view(dtype), BFLOAT16)
    ns["_bfloat16_converters"] = (widen_host, narrow_host)


# The kernels a backend imports after its float16 wrappers (convolution, pooling, resampling:
# they handle float16 themselves or not at all).  For bfloat16 each is wrapped whole: its
# bfloat16 buffers (views' and bare ones) widened, the float32 kernel run, its floating
# results rounded once.  (PyTorch's Half/BFloat16 pooling backwards add in the 16-bit type;
# these round once: a departure where windows overlap.)
LATE_KERNELS = ("conv2d_forward", "conv2d_backward", "max_pool2d", "max_pool2d_backward", "avg_pool2d",
                "avg_pool2d_backward", "interp_pass", "interp_pass_backward", "grid_sampler_2d",
                "grid_sampler_2d_backward", "fractional_max_pool")


def install_late(ns):
    """Wrap the LATE_KERNELS present in a backend's namespace for bfloat16 (see above)."""
    import functools
    widen, narrow = ns["_bfloat16_converters"]

    def wrap(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            found = [False]

            def arg(a):
                if isinstance(a, tuple) and len(a) == 4 and getattr(a[0], "dtype", None) == U16:
                    found[0] = True
                    buf, off, shape, strides = a
                    return (widen(buf), off, shape, strides)
                if getattr(a, "dtype", None) == U16 and hasattr(a, "size") and not isinstance(a, tuple):
                    found[0] = True
                    return widen(a)
                return a
            args = tuple(arg(a) for a in args)
            out = fn(*args)
            if not found[0]:
                return out

            def res(r):
                return narrow(r) if getattr(r, "dtype", None) == np.float32 else r
            return tuple(res(r) for r in out) if isinstance(out, tuple) else res(out)
        return wrapper
    for name in LATE_KERNELS:
        if name in ns:
            ns[name] = wrap(ns[name])


def _cuda_kernels():
    # (numba.cuda as this module's global, not a closure cell: the simulator swaps the
    # kernels' global `cuda` for its own)
    global cuda
    from .cuda._device import jit
    from numba import cuda

    @jit
    def widen_kernel(src, out):
        # out: the float32 result's words (uint32)
        for i in range(cuda.grid(1), src.size, cuda.gridsize(1)):
            out[i] = np.uint32(src[i]) << np.uint32(16)

    @jit
    def narrow_kernel(src, out):
        # src: float32 words (uint32); out: uint16 words
        for i in range(cuda.grid(1), src.size, cuda.gridsize(1)):
            u = np.uint64(src[i])
            if (u & np.uint64(0x7FFFFFFF)) > np.uint64(0x7F800000):
                out[i] = np.uint16(_QUIET_NAN)
            else:
                out[i] = np.uint16((u + ((u >> np.uint64(16)) & np.uint64(1)) + np.uint64(0x7FFF)) >> np.uint64(16))
    return widen_kernel, narrow_kernel


def install_cuda(ns):
    """bfloat16 for the CUDA backend's namespace (after its float16 wrappers): the two
    conversions are the only bfloat16 kernels."""
    from ._half import install
    from .cuda._device import device_array, launch, to_device
    widen_kernel, narrow_kernel = _cuda_kernels()

    def widen(buf):
        if isinstance(buf, np.ndarray):          # a CPU scalar tensor mixed in
            return to_device(widen_host(buf) if buf.dtype == U16 else buf.astype(np.float32))
        n = buf.size
        out = device_array(n, np.float32)
        if n:
            widen_kernel[launch(n)](buf, out.view(np.uint32))
        return out

    def narrow(buf):
        if isinstance(buf, np.ndarray):
            return to_device(narrow_host(buf))
        if buf.dtype != np.float32:
            tmp = device_array(buf.size, np.float32)
            ns["copy"]((buf, 0, (buf.size,), (1,)), (tmp, 0, (buf.size,), (1,)))
            buf = tmp
        n = buf.size
        out = device_array(n, U16)
        if n:
            narrow_kernel[launch(n)](buf.view(np.uint32), out)
        return out
    install(ns, widen, narrow, lambda buf, dtype: buf.view(dtype), BFLOAT16)
    ns["_bfloat16_converters"] = (widen, narrow)
