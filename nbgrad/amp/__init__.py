"""nbgrad.amp: automatic mixed precision (PyTorch's torch.amp): autocast and GradScaler.

autocast_mode holds the autocast state the op entry points test; it imports nothing heavy, so
nbgrad.ops can import it while nbgrad itself is loading."""
from .autocast_mode import autocast, custom_fwd, custom_bwd, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available", "GradScaler"]
