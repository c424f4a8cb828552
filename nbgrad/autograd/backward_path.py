"""How a backward formula runs: the one decision every node with a fast path makes.

  RECORDED  grad mode is on (create_graph=True) and something the formula reads requires
            grad: the formula runs as ordinary Tensor ops, so that it is itself recorded
            and differentiable.
  FUSED     otherwise, when the backend offers the acceleration the node asks for (one
            kernel for the whole formula): the op layer says so with `accelerated`.
  COMPOSED  otherwise: the same Tensor ops as RECORDED, unrecorded (grad mode is off).

The engine knows nothing of kernels: which accelerations a backend has is the op
layer's question (nbgrad.ops._graph.accelerated); this module only orders the answers.
"""
import sys

from .. import _debug
from .grad_mode import is_grad_enabled

RECORDED, FUSED, COMPOSED = "recorded", "fused", "composed"


def backward_path(accelerated, *tensors):
    """RECORDED, FUSED or COMPOSED for a formula reading `tensors` (None entries skipped);
    `accelerated`: whether a fused kernel could run it (a bool, or a callable asked only
    when the answer matters)."""
    if is_grad_enabled():
        for t in tensors:
            if t is not None and t.requires_grad:
                if _debug.ENABLED: _log(RECORDED)
                return RECORDED
    if accelerated if not callable(accelerated) else accelerated():
        if _debug.ENABLED: _log(FUSED)
        return FUSED
    if _debug.ENABLED: _log(COMPOSED)
    return COMPOSED


def _log(path):
    # the node is the caller of backward_path: its code's qualified name, e.g.
    # "MulBackward0.backward" (looked up only when NBGRAD_DEBUG is on)
    _debug.log("backward", path=path, node=sys._getframe(2).f_code.co_qualname)
