"""NBGRAD_DEBUG on the CUDA backend: its elementwise dispatch logs the path it took, as
the CPU's does (tests/test_debug.py)."""
import logging

import nbgrad
from nbgrad import _debug

from cuda_available import requires_cuda


@requires_cuda
def test_cuda_elementwise_paths_are_logged(caplog):
    caplog.set_level(logging.DEBUG, logger="nbgrad")
    previous = _debug.enable(True)
    try:
        x = nbgrad.arange(12, dtype=nbgrad.float32, device="cuda").reshape(3, 4)
        x.exp()
        x[:, ::2].exp()
        x + x
        x * 2.0
        x + x[:1].expand(3, 4).t().t()
        nbgrad.where(x > 3, x, x)
    finally:
        _debug.enable(previous)
    logged = [(r.nbgrad_event, r.nbgrad_fields["path"]) for r in caplog.records
              if r.name == "nbgrad" and r.nbgrad_event.startswith("cuda.")]
    assert logged == [("cuda.unary", "contiguous"), ("cuda.unary", "strided"),
                      ("cuda.binary", "contiguous"), ("cuda.binary", "scalar_b"), ("cuda.binary", "strided"),
                      ("cuda.binary", "scalar_b"), ("cuda.where", "contiguous")]
