"""Automatic mixed precision: the autocast state and the casts op entry points make under it
(PyTorch's torch.amp.autocast_mode and its C++ autocast dispatch keys, in Python).

The op entry points that PyTorch's autocast lists (matmul, mm, bmm, linear, addmm, addbmm,
baddbmm, conv*, conv_transpose*, prelu: the "lower precision" list; a few losses: the float32
list) start with one line,

    if _amp.ON: a, b = _amp.cast_lower(a, b)

so with autocast off (the default) an op pays one module-attribute truth test and nothing else.
`ON` is True while autocast is enabled for any device type.

The cast is `Tensor.to(dtype)`: differentiable (ToCopyBackward0), so the gradients reach float32
leaves in float32.  As in PyTorch only floating tensors other than float64 are cast, each only
when autocast is on for its device type; casts of float32 leaves that require grad are cached
(cache_enabled) until the outermost autocast region exits, so a weight used twice is cast once.

Departures from PyTorch: the state is process-wide, not thread-local; the device types are
"cpu" and "cuda" only (others raise RuntimeError: "User specified an unsupported autocast
device_type"); the backward pass is not excluded from autocast (its casts are no-ops: the
tensors it sees are already in the autocast dtype), and ops called inside another listed op
see already-cast inputs, so they cast nothing more.
"""
import functools

from .._warnings import warn_user as _warn_user
from .. import _dtype as D

ON = False  # autocast enabled for some device type: the one test op entry points make

_DEVICE_TYPES = ("cpu", "cuda")
_enabled = {"cpu": False, "cuda": False}
_fast_dtype = {"cpu": D.bfloat16, "cuda": D.float16}
_cache_enabled = [True]
_nesting = [0]
_cache = {}  # id(leaf) -> (leaf, its cast): keeping the leaf alive keeps its id unique


def _device_type(device_type):
    if not isinstance(device_type, str):
        raise TypeError(f"is_autocast_enabled(): argument 'device_type' (position 1) must be str, "
                        f"not {type(device_type).__name__}")
    # "cuda:0" names the device type "cuda", as torch.device would
    kind = device_type.split(":", 1)[0]
    if kind not in _DEVICE_TYPES:
        raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {device_type}")
    return kind


def _sync_on():
    global ON
    ON = _enabled["cpu"] or _enabled["cuda"]


def is_autocast_available(device_type):
    """Whether autocast is supported for this device type (nbgrad: "cpu" and "cuda")."""
    return isinstance(device_type, str) and device_type in _DEVICE_TYPES


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for `device_type` (no argument: "cuda", as in PyTorch)."""
    return _enabled["cuda" if device_type is None else _device_type(device_type)]


def set_autocast_enabled(device_type, enabled=None):
    """set_autocast_enabled(device_type, enabled), or PyTorch's older set_autocast_enabled(enabled)
    for "cuda"."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _enabled[_device_type(device_type)] = bool(enabled)
    _sync_on()


def get_autocast_dtype(device_type):
    return _fast_dtype[_device_type(device_type)]


def set_autocast_dtype(device_type, dtype):
    if not isinstance(dtype, D.dtype):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' (position 2) must be torch.dtype, "
                        f"not {type(dtype).__name__}")
    _fast_dtype[_device_type(device_type)] = dtype


def is_autocast_cpu_enabled():
    return _enabled["cpu"]


def get_autocast_cpu_dtype():
    return _fast_dtype["cpu"]


def is_autocast_cache_enabled():
    return _cache_enabled[0]


def set_autocast_cache_enabled(enabled):
    _cache_enabled[0] = bool(enabled)


def clear_autocast_cache():
    _cache.clear()


def autocast_increment_nesting():
    _nesting[0] += 1
    return _nesting[0]


def autocast_decrement_nesting():
    _nesting[0] -= 1
    return _nesting[0]


def _eligible(t):
    """The autocast device type `t` is cast under, or None (not a tensor, not floating,
    float64, or autocast off for its device)."""
    from .._tensor import Tensor
    if not isinstance(t, Tensor):
        return None
    dt = t._dtype
    if not dt.is_floating_point or dt is D.float64:
        return None
    kind = t._storage.device.type
    return kind if _enabled.get(kind, False) else None


def _to_lower(t):
    kind = _eligible(t)
    if kind is None:
        return t
    fast = _fast_dtype[kind]
    if t._dtype is fast:
        return t
    # PyTorch caches the casts of float32 leaves that require grad (the weights): one cast,
    # one ToCopyBackward0 node per weight per autocast region
    cacheable = _cache_enabled[0] and t._dtype is D.float32 and t.requires_grad and t.is_leaf \
        and not t._is_view()
    if cacheable:
        hit = _cache.get(id(t))
        if hit is not None and hit[0] is t and hit[1]._dtype is fast:
            return hit[1]
    out = t.to(fast)
    if cacheable:
        _cache[id(t)] = (t, out)
    return out


def _to_float32(t):
    return t if _eligible(t) is None or t._dtype is D.float32 else t.to(D.float32)


def cast_lower(*args):
    """The op's arguments with floating tensors (not float64) cast to the autocast dtype
    (PyTorch's lower_precision_fp policy); other arguments unchanged."""
    return tuple(_to_lower(a) for a in args)


def cast_float32(*args):
    """The op's arguments with floating tensors cast to float32 (PyTorch's fp32 policy)."""
    return tuple(_to_float32(a) for a in args)


class autocast:
    """Context manager and decorator: ops in PyTorch's autocast lists run in `dtype` (default:
    get_autocast_dtype(device_type): bfloat16 on "cpu", float16 on "cuda") inside it."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        supported = (D.bfloat16, D.float16)
        if enabled:
            if device_type == "cuda":
                from .. import cuda
                if not cuda.is_available():
                    _warn_user("CUDA is not available or torch_xla is imported. Disabling autocast.",
                               stacklevel=2)
                    enabled = False
            elif self.fast_dtype not in supported:
                name = device_type.upper()
                _warn_user(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                           f"{name} Autocast only supports dtypes of "
                           + ", ".join(map(str, supported)) + " currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        # the cache lives as long as the outermost autocast region
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """PyTorch's torch.amp.custom_fwd for autograd.Function.forward: runs forward with autocast
    off and its floating tensor arguments cast to `cast_inputs` when that is given and autocast
    was on; else in the surrounding autocast state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """PyTorch's torch.amp.custom_bwd: backward runs in the autocast state forward ran in."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd


def _cast(value, device_type, dtype):
    """Floating tensors (not float64) on `device_type` in nested lists/tuples/dicts cast to dtype."""
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        ok = value.is_floating_point() and value.dtype is not D.float64 and value.device.type == device_type
        return value.to(dtype) if ok else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        out = (_cast(v, device_type, dtype) for v in value)
        return type(value)(out) if isinstance(value, list) else tuple(out)
    return value
