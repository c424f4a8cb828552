"""nbgrad.nn.attention: SDPBackend and the sdpa_kernel context manager, which choose the
backends F.scaled_dot_product_attention may use, as torch.nn.attention.

nbgrad has one implementation of scaled_dot_product_attention: PyTorch's math path, composed of
Tensor ops. sdpa_kernel does not pretend otherwise; it records which backends are enabled, and
scaled_dot_product_attention applies PyTorch's CPU selection rule to that record (measured on
PyTorch 2.13 CPU), so a call succeeds or fails as it would there:
  * MATH enabled: runs.
  * neither MATH nor FLASH_ATTENTION enabled (only EFFICIENT_ATTENTION, CUDNN_ATTENTION,
    OVERRIDEABLE, or nothing): RuntimeError "No viable backend for scaled_dot_product_attention
    was found. ..." (PyTorch's CPU has no efficient, cuDNN or overrideable kernel).
  * FLASH_ATTENTION without MATH: runs when PyTorch's CPU flash kernel would accept the inputs
    (4-D q/k/v with one batch size and one head count, or heads that divide under enable_gqa;
    the same last dim; a 2-D or 4-D mask without grad; last-dim stride 1; a floating dtype;
    dropout_p == 0); otherwise the warnings "Flash attention kernel not used because:" and
    the reason, then RuntimeError "No available kernel.  Aborting execution.".
  * inputs with no elements return before any backend is chosen, whatever is enabled.
Departures: the values are always the math path's (PyTorch's CPU flash kernel, which it picks by
default, rounds differently in the last bits); the same rule is applied on CUDA tensors, where
nbgrad has no fused kernels either; set_priority only reorders the recorded priority (PyTorch's
CPU ignores it too)."""
import contextlib
import enum

from ..._warnings import warn_user as _warn_user

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """The backends of scaled dot product attention, with PyTorch's values."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    def __index__(self):
        return self.value

    def __str__(self):
        return f"SDPBackend.{self.name}"


_SELECTABLE = (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
               SDPBackend.MATH, SDPBackend.OVERRIDEABLE)
_enabled = set(_SELECTABLE)
_priority = [1, 2, 0, 3, 4]          # PyTorch's default order (flash, efficient, math, cudnn, overrideable)


def _cur_sdpa_kernel_backends(with_priority=False):
    backends = [b for b in _SELECTABLE if b in _enabled]
    if with_priority:
        backends.sort(key=lambda b: _priority.index(b.value))
    return backends


def _sdpa_kernel(backends, set_priority=False):
    global _priority
    _enabled.clear()
    _enabled.update(b for b in _SELECTABLE if b in backends)
    if set_priority:
        order = [int(b) for b in backends]
        order += [p for p in _priority if p not in order]
        _priority = order


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Within the block, scaled_dot_product_attention may use only `backends` (one SDPBackend or
    a list); the previous selection comes back on exit, also after an exception."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = _cur_sdpa_kernel_backends(with_priority=set_priority)
    try:
        _sdpa_kernel(backends, set_priority)
        yield {}
    finally:
        _sdpa_kernel(previous, set_priority)


def _sizes(t):
    return str(list(t.shape))


def _flash_rejection(query, key, value, attn_mask, dropout_p, enable_gqa):
    """None when PyTorch's CPU flash kernel takes these inputs; else why not ("" where PyTorch
    gives no reason), in the order of PyTorch's checks."""
    if dropout_p > 0.0:
        return "Both fused kernels do not support non-zero dropout."
    if not (query.dim() == key.dim() == value.dim() == 4):
        return (f"All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: "
                f"{query.dim()}, Key dim: {key.dim()}, Value dim: {value.dim()} instead.")
    if not (query.shape[0] == key.shape[0] == value.shape[0]):
        return (f"For dense inputs, both fused kernels require query, key and value to have the same batch_size. "
                f"Query.sizes(): {_sizes(query)}, Key.sizes(): {_sizes(key)}, Value.sizes(): {_sizes(value)} "
                "instead. To broadcast dense inputs, try using unsqueeze and expand_to before passing them into "
                "the kernel.")
    hq, hk, hv = query.shape[1], key.shape[1], value.shape[1]
    if enable_gqa:
        if hk != hv:
            return (f"Both fused kernels require key and value to have the same num_heads and batch_size but got: "
                    f"Key sizes: {_sizes(key)}, Value sizes: {_sizes(value)}, Query sizes: {_sizes(query)} instead.")
        if hq % hk:
            return (f"The number of heads in key/value must divide number of heads in query.Got input Key sizes(): "
                    f"{hk}, Value sizes(): {hv}, Query sizes(): {hq} instead.")
    elif not (hq == hk == hv):
        return (f"For dense input, both fused kernels require query, key and value to have the same num_heads. "
                f"Query.sizes(): {_sizes(query)}, Key sizes(): {_sizes(key)}, Value sizes(): {_sizes(value)} "
                "instead. To broadcast dense inputs, try using unsqueeze and expand_to before passing them into "
                "the kernel.")
    if attn_mask is not None:
        if attn_mask.requires_grad:
            return ""
        if attn_mask.dim() < 2:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{max(attn_mask.dim(), 1)}, "
                             f"{max(attn_mask.dim(), 1) - 1}], but got -2)")
        if attn_mask.shape[-2] not in (query.shape[2], 1) or attn_mask.shape[-1] not in (key.shape[2], 1):
            return ""
        ok = attn_mask.dim() == 2 or (attn_mask.dim() == 4 and attn_mask.shape[0] in (1, query.shape[0])
                                      and attn_mask.shape[1] in (1, hq))
        if not ok:
            return ("Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x {KV_seq_len, 1}); 4d - "
                    "({Batch, 1} x {Num_heads, 1} x {Q_seq_len, 1}  x {KV_seq_len, 1})")
    if not (query.shape[-1] == key.shape[-1] == value.shape[-1]):
        return (f"Flash attention requires q,k,v to have the same last dimension. Got Query.size(-1): "
                f"{query.shape[-1]}, Key.size(-1): {key.shape[-1]}, Value.size(-1): {value.shape[-1]} instead.")
    if not (query.stride(-1) == key.stride(-1) == value.stride(-1) == 1):
        return (f"All fused kernels require the last dimension of the input to have stride 1. Got Query.stride(-1): "
                f"{query.stride(-1)}, Key.stride(-1): {key.stride(-1)}, Value.stride(-1): {value.stride(-1)}")
    if not query.dtype.is_floating_point:
        return ("Expected query, key and value to all be of dtype: {Float, Double, BFloat16, Half}. Got Query dtype: "
                f"{query.dtype}, Key dtype: {key.dtype}, and Value dtype: {value.dtype} instead.")
    return None


def _check_sdpa_backend(query, key, value, attn_mask, dropout_p, enable_gqa):
    """Raise (after PyTorch's warnings) where PyTorch's CPU would find no enabled backend for
    these inputs; return where the math path nbgrad runs stands for the chosen one."""
    if not (SDPBackend.MATH in _enabled or SDPBackend.FLASH_ATTENTION in _enabled):
        if query.numel() == 0 or key.numel() == 0 or value.numel() == 0:
            return
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    if SDPBackend.MATH in _enabled or query.numel() == 0 or key.numel() == 0 or value.numel() == 0:
        return
    reason = _flash_rejection(query, key, value, attn_mask, dropout_p, enable_gqa)
    if reason is None:
        return
    # stacklevel 3: the warnings point at the caller of F.scaled_dot_product_attention
    _warn_user("Flash attention kernel not used because:", UserWarning, stacklevel=3)
    if reason:
        _warn_user(reason, UserWarning, stacklevel=3)
    raise RuntimeError("No available kernel.  Aborting execution.")
