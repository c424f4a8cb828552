"""Where nbgrad writes generated code: one directory for all of it.

NBGRAD_CACHE_DIR, else Numba's NUMBA_CACHE_DIR/nbgrad, else ~/.cache/nbgrad; each kind
of generated module has a subdirectory (`fused` for nbgrad.fuse's and the op table's
kernels, `compiled` for nbgrad.compile's steps).  Numba caches the machine code of a
generated file's `cache=True` functions beside it (or under NUMBA_CACHE_DIR), keyed by
the file, whose name carries a digest of its source and of the kernel sources it calls.
"""
import os
import pathlib

from numba import config


def cache_root():
    explicit = os.environ.get("NBGRAD_CACHE_DIR")
    if explicit:
        return pathlib.Path(explicit)
    if config.CACHE_DIR:
        return pathlib.Path(config.CACHE_DIR) / "nbgrad"
    return pathlib.Path.home() / ".cache" / "nbgrad"


def generated_dir(kind):
    """The directory of one kind of generated module ('fused', 'compiled')."""
    return cache_root() / kind
