"""The process-wide switches of PyTorch's top level that change how numbers are made:
use_deterministic_algorithms (and its debug-mode spelling), the float32 matmul precision,
set_warn_always; and `nbgrad.utils.deterministic.fill_uninitialized_memory`.

What determinism means here.  nbgrad's CPU kernels are deterministic at a fixed thread count
(each thread sums a fixed chunk, chunks combine in order), so on the CPU the switch changes
what PyTorch's changes there: with `fill_uninitialized_memory` (on by default) every tensor
made without values -- empty, empty_like, empty_strided, new_empty, Tensor.new(sizes), the
elements resize_ adds -- is filled with NaN (floating types) or the dtype's largest value
(integers; True for bool), so a read of memory nobody wrote shows.  On a GPU the scatter
that adds with atomics (index_add_, index_put_(accumulate=True), put_, the backward of
indexing and gather) takes its serial in-order path instead, PyTorch's "deterministic
alternative" for those ops.

get/set_float32_matmul_precision stores the choice and reports it back; nbgrad has no
TF32 or bfloat16 GEMM paths, so every precision computes float32 matmuls in float32 (which
"highest" promises and the others allow).
"""
import math

from ._warnings import warn_user as _warn_user
from . import _dtype as D

_deterministic = False
_warn_only = False
_matmul_precision = "highest"
_warn_always = False


def use_deterministic_algorithms(mode, *, warn_only=False):
    global _deterministic, _warn_only
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _deterministic, _warn_only = mode, warn_only


def are_deterministic_algorithms_enabled():
    return _deterministic


def is_deterministic_algorithms_warn_only_enabled():
    return _warn_only


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """'default' (0): off; 'warn' (1): on, warn only; 'error' (2): on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _deterministic:
        return 0
    return 1 if _warn_only else 2


def set_float32_matmul_precision(precision):
    global _matmul_precision
    if precision not in ("highest", "high", "medium"):
        _warn_user(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                   f"setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _matmul_precision = precision


def get_float32_matmul_precision():
    return _matmul_precision


def set_warn_always(b):
    """Warnings PyTorch gives once a process (TORCH_WARN_ONCE) are given every time."""
    global _warn_always
    if not isinstance(b, bool):
        raise TypeError(f"_set_warnAlways(): argument 'arg0' (position 1) must be bool, not {type(b).__name__}")
    _warn_always = b


def is_warn_always_enabled():
    return _warn_always


# ---------------------------------------------------------------- uninitialized memory
def fills_uninitialized():
    """Whether a tensor made without values gets fill_value(dtype) written into it."""
    if not _deterministic:
        return False
    from .utils import deterministic
    return bool(deterministic.fill_uninitialized_memory)


def fill_value(dtype):
    if dtype.is_floating_point:
        return math.nan
    if dtype is D.bool_:
        return True
    return D.iinfo(dtype).max


def fill_uninitialized(t):
    """t (a tensor just made over new memory) filled as PyTorch's deterministic mode fills it."""
    if fills_uninitialized():
        fill_buffer(t._storage, 0, len(t._storage.buffer), t._dtype)
    return t


def fill_buffer(storage, start, stop, dtype):
    """storage's elements start:stop filled with fill_value(dtype) (the whole buffer for a new
    tensor -- empty_strided's gaps too --, the grown tail for resize_)."""
    if stop > start:
        from .backends import get_backend
        get_backend(storage.device.type).fill((storage.buffer, start, (stop - start,), (1,)), fill_value(dtype))
