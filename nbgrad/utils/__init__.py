"""nbgrad.utils: data loading (nbgrad.utils.data), activation checkpointing (nbgrad.utils.checkpoint), hook helpers (nbgrad.utils.hooks)."""
from . import data
from . import checkpoint
from . import hooks
