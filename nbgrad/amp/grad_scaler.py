"""GradScaler: loss scaling for mixed-precision training (PyTorch's torch.amp.GradScaler).

scale(loss) multiplies by the scale factor; unscale_(optimizer) divides the optimizer's grads by
it in place and records whether any is inf/NaN; step(optimizer) unscales if not yet done and
skips optimizer.step() when an inf/NaN was found; update() backs the scale off after a skipped
step and grows it after `growth_interval` clean ones (torch._amp_update_scale_'s rule).  The
scale is a 0-dim float32 tensor and the growth tracker a 0-dim int32 one, made lazily on the
first scale() on the outputs' device, as in PyTorch.

Departures from PyTorch: optimizers' fused `_step_supports_amp_scaling` path is not offered
(nbgrad's optimizers have none); sparse gradients are not handled (nbgrad has none); the
per-device bookkeeping is kept but there is only the one device per tensor's device type.
"""
from collections import abc
from collections import defaultdict
from enum import Enum

from .._warnings import warn_user as _warn_user

__all__ = ["OptState", "GradScaler"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scale losses so float16 gradients do not underflow; unscale before the step, skip steps
    with inf/NaN gradients and adapt the scale."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda":
            from .. import cuda
            if enabled and not cuda.is_available():
                _warn_user("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                           stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None            # 0-dim float32 tensor, made by the first scale()
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None   # 0-dim int32 tensor: clean steps since the last change
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev):
        import nbgrad
        self._scale = nbgrad.full((), self._init_scale, dtype=nbgrad.float32, device=dev)
        self._growth_tracker = nbgrad.full((), self._init_growth_tracker, dtype=nbgrad.int32, device=dev)

    def scale(self, outputs):
        """outputs (a tensor or nested iterables of tensors) times the scale factor."""
        import nbgrad
        if not self._enabled:
            return outputs
        if isinstance(outputs, nbgrad.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device)

        def apply_scale(val):
            if isinstance(val, nbgrad.Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                return val * self._scale.to(device=val.device)
            if isinstance(val, abc.Iterable):
                # lazily mapped, as PyTorch's (a str is not refused)
                iterable = map(apply_scale, val)
                return type(val)(iterable) if isinstance(val, (list, tuple)) else iterable
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        """grads *= inv_scale in place; found_inf (per device) set to 1.0 where a grad holds an
        inf or NaN (PyTorch's _amp_foreach_non_finite_check_and_unscale_)."""
        import nbgrad
        per_device_found_inf = {}
        with nbgrad.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, nbgrad.Tensor):
                        raise AssertionError(f"expected param to be torch.Tensor, got {type(param).__name__}")
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype is nbgrad.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    dev = grad.device
                    key = str(dev)
                    if key not in per_device_found_inf:
                        per_device_found_inf[key] = found_inf.to(device=dev).clone()
                    if not bool(nbgrad.isfinite(grad).all()):
                        per_device_found_inf[key].fill_(1.0)
                    if not (isinstance(inv_scale, float) and inv_scale == 1.0):
                        grad.mul_(inv_scale.to(device=dev) if isinstance(inv_scale, nbgrad.Tensor) else inv_scale)
        return per_device_found_inf

    def unscale_(self, optimizer):
        """Divide the optimizer's gradients by the scale factor, in place (once per update())."""
        import nbgrad
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        elif optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # the reciprocal in float64, then rounded to float32: PyTorch's
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = nbgrad.full((), 0.0, dtype=nbgrad.float32, device=self._scale.device)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):
        retval = None
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        return retval

    def step(self, optimizer, *args, **kwargs):
        """unscale_(optimizer) if not yet done, then optimizer.step(*args, **kwargs) unless a
        gradient held an inf or NaN; returns what optimizer.step returned (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Back off the scale if any step of this iteration was skipped, else count a clean
        step and grow it every growth_interval; or set it to new_scale."""
        import nbgrad
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                self._scale.copy_(new_scale)
        else:
            found_infs = [found_inf.to(device=_scale.device)
                          for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            found_inf_combined = found_infs[0]
            for f in found_infs[1:]:
                found_inf_combined = found_inf_combined + f
            with nbgrad.no_grad():
                _update_scale_(_scale, _growth_tracker, found_inf_combined, self._growth_factor,
                               self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale factor as a Python float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else self._get_scale_async().item()
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """{"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"}
        ({} when disabled)."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning "
                                     "of an iteration, or at the end after scaler.update().")
            # the tensors are made again by the first scale() after unpickling
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _check_inf_per_device(self, optimizer):
        import nbgrad
        _scale, _ = self._check_scale_growth_tracker("_check_inf_per_device")
        dummy_inv_scale = 1.0
        found_inf = nbgrad.full((), 0.0, dtype=nbgrad.float32, device=_scale.device)
        self._per_optimizer_states[id(optimizer)]["found_inf_per_device"] = \
            self._unscale_grads_(optimizer, dummy_inv_scale, found_inf, True)
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]

    def _found_inf_per_device(self, optimizer):
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]


def _update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    """PyTorch's _amp_update_scale_: after an inf/NaN, scale *= backoff_factor and the tracker
    restarts; else the tracker counts up and at growth_interval the scale grows (kept only
    when still finite) and the tracker restarts."""
    if found_inf.item():
        scale.mul_(backoff_factor)
        growth_tracker.fill_(0)
        return
    successful = growth_tracker.item() + 1
    if successful == growth_interval:
        # the product rounded to float32, as PyTorch's kernel computes it
        new_scale = scale * growth_factor
        if bool(new_scale.isfinite()):
            scale.copy_(new_scale)
        growth_tracker.fill_(0)
    else:
        growth_tracker.fill_(successful)
