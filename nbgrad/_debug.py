"""NBGRAD_DEBUG=1: one log line for each dispatch decision the library makes.

Which path a call took -- contiguous, scalar-broadcast or strided kernel, split
across threads, BLAS or loop matmul, a fused kernel compiled or served from a
cache, a recorded/fused/composed backward -- is written to the `logging` logger
"nbgrad" at DEBUG level, one line per decision:

    nbgrad: binary op=mul path=scalar_b n=1048576 dtype=float32 split=True
    nbgrad: split parts=2 n=1048576 threads=2

With the environment variable set at import, a handler writing to stderr is
installed on that logger.  `enable(True)` turns logging on later (tests, a
debugging session), without installing a handler: route the records yourself.

Cost when off: every call site reads `if _debug.ENABLED:` and nothing more (the
hottest paths of the library carry these lines), so ENABLED is a plain module
attribute, read as `_debug.ENABLED` (not imported by value: enable() must be
seen).  Each record also carries the event and its fields as attributes
`nbgrad_event` (str) and `nbgrad_fields` (dict), for tests and tools.
"""
import logging
import os
import sys

logger = logging.getLogger("nbgrad")

ENABLED = os.environ.get("NBGRAD_DEBUG", "0") not in ("", "0")

if ENABLED:
    _handler = logging.StreamHandler(sys.stderr)
    _handler.setFormatter(logging.Formatter("nbgrad: %(message)s"))
    logger.addHandler(_handler)
    logger.setLevel(logging.DEBUG)


def enable(on=True):
    """Turn debug logging on or off; returns the previous setting.  Turning it on sets the
    "nbgrad" logger's level to DEBUG (if it has none)."""
    global ENABLED
    previous = ENABLED
    ENABLED = bool(on)
    if ENABLED and logger.level == logging.NOTSET:
        logger.setLevel(logging.DEBUG)
    return previous


def log(event, **fields):
    """One line: the event's name, then key=value for each field."""
    text = " ".join([event] + [f"{key}={value}" for key, value in fields.items()])
    logger.debug(text, extra={"nbgrad_event": event, "nbgrad_fields": fields})


def kernel_state(kernel):
    """What a Numba dispatcher has done so far: (signatures compiled or loaded in this
    process, disk-cache hits, disk-cache misses).  Taken before a call, given to
    `cache_source` after it."""
    stats = kernel.stats
    return len(kernel.signatures), sum(stats.cache_hits.values()), sum(stats.cache_misses.values())


def cache_source(kernel, before):
    """Where the machine code of the call just made came from: 'memory' (already compiled
    in this process), 'disk' (Numba's on-disk cache) or 'compile'."""
    signatures, hits, _ = kernel_state(kernel)
    if signatures == before[0]:
        return "memory"
    return "disk" if hits > before[1] else "compile"
