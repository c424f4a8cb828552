"""nbgrad.random: PyTorch's torch.random module over nbgrad's default generator.

manual_seed / seed / initial_seed / get_rng_state / set_rng_state are nbgrad's own
top-level functions (the same objects as nbgrad.manual_seed, ...); fork_rng saves the
generator state(s) on entry and puts them back on exit, also when the body raises.

Departures from PyTorch:
- the CPU state is nbgrad's (Numba's Mersenne Twister, 2520 bytes), not PyTorch's
  (5056 bytes); a state from one cannot be given to the other.
- nbgrad's CUDA backend has one generator for all its devices: fork_rng forks that one
  state when the CUDA backend is loaded and CUDA devices are asked for (devices=None
  or a non-empty list), whatever their ids.
- thread_safe_generator() returns None: nbgrad's DataLoader workers are processes,
  whose generators are already their own.
"""
import contextlib

from ._warnings import warn_user as _warn_user
from ._creation import default_generator, initial_seed, manual_seed, seed
from ._random_more import get_rng_state, set_rng_state

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng",
           "thread_safe_generator", "default_generator"]

_fork_rng_warned_already = False
# the device types PyTorch's device strings name (other than cuda, nbgrad has none of them:
# forking them forks the CPU state only, as PyTorch does on a machine without them)
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                 "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


def _cuda_backend():
    """The CUDA backend when it is loaded (forking must not load it: loading costs seconds
    and, without a GPU, fails), else None."""
    from .backends import _BACKENDS
    return _BACKENDS.get("cuda")


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Fork the RNG: on exit (normal or by an exception) the generator states are those
    it had on entry.  The CPU state is always forked; `devices` names the accelerator
    devices to fork too (None: all of them); enabled=False forks nothing."""
    global _fork_rng_warned_already
    if device_type == "meta":
        yield
        return
    device_type = device_type or "cuda"
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: "
                           f"{device_type}")
    if not enabled:
        yield
        return
    if devices is None:
        from . import cuda
        num_devices = cuda.device_count() if device_type == "cuda" else 0
        if num_devices > 1 and not _fork_rng_warned_already:
            kind = device_type.upper()
            _warn_user(
                f"{kind} reports that you have {num_devices} available devices, and "
                f"you have used {_caller} without explicitly specifying which devices are being used. "
                f"For safety, we initialize *every* {kind} device by default, which can "
                f"be quite slow if you have a lot of {kind}s. If you know that you are only"
                f" making use of a few {kind} devices, set the environment variable "
                f"{kind}_VISIBLE_DEVICES or the '{_devices_kw}' keyword argument of {_caller} "
                "with the set of devices you are actually using. For example, if you are using CPU only, "
                "set device.upper()_VISIBLE_DEVICES= or devices=[]; if you are using device 0 only, "
                f"set {kind}_VISIBLE_DEVICES=0 or devices=[0].  To initialize all devices "
                f"and suppress this warning, set the '{_devices_kw}' keyword argument to "
                f"`range(torch.{device_type}.device_count())`.", stacklevel=3)
            _fork_rng_warned_already = True
        fork_device = True
    else:
        fork_device = len(list(devices)) > 0
    cpu_state = get_rng_state()
    backend = _cuda_backend() if device_type == "cuda" and fork_device else None
    device_state = backend.get_rng_state() if backend is not None else None
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        if backend is not None:
            backend.set_rng_state(device_state)


def thread_safe_generator():
    """The generator of the DataLoader thread worker this runs in; None elsewhere (nbgrad's
    workers are processes, so this is None)."""
    from .utils.data import get_worker_info
    info = get_worker_info()
    if info is not None and getattr(info, "worker_method", None) == "thread" and getattr(info, "rng", None) is not None:
        return info.rng.torch_generator
    return None
