"""nbgrad.utils: data loading (nbgrad.utils.data), activation checkpointing (nbgrad.utils.checkpoint), hook helpers
(nbgrad.utils.hooks); timing (nbgrad.utils.benchmark) loads on first use."""
from . import data
from . import checkpoint
from . import hooks

from .._lazy import lazy_submodules as _lazy_submodules
__getattr__ = _lazy_submodules(__name__, ("benchmark",))
