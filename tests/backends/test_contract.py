"""The backend contract in code: each backend exports the required primitives and exactly
the optional accelerations it declares; the op layer asks the declaration."""
import pytest

import nbgrad
from nbgrad import backends
from nbgrad.ops import _graph

# What a backend may export beyond the contract: device-specific extras.
DEVICE_EXTRAS = {"to_host", "cuda_array_interface", "tensor_from_cuda_array", "synchronize", "SIMULATOR"}


def _backend_modules():
    mods = [backends.get_backend("cpu")]
    try:
        mods.append(backends.get_backend("cuda"))
    except Exception:            # no numba-cuda and no simulator: only the CPU is checked
        pass
    return mods


@pytest.mark.parametrize("be", _backend_modules(), ids=lambda m: m.__name__)
def test_a_backend_exports_the_primitives_and_what_it_declares(be):
    exported = set(be.__all__)
    assert backends.REQUIRED <= exported, backends.REQUIRED - exported
    assert isinstance(be.ACCELERATIONS, frozenset)
    assert be.ACCELERATIONS <= backends.ACCELERATIONS, be.ACCELERATIONS - backends.ACCELERATIONS
    # an exported acceleration is declared, and a declared one exported and callable
    assert exported & backends.ACCELERATIONS == be.ACCELERATIONS
    for name in backends.REQUIRED | be.ACCELERATIONS:
        assert hasattr(be, name), name
        if not name.endswith("_OPS"):
            assert callable(getattr(be, name)), name
    allowed = backends.REQUIRED | backends.ACCELERATIONS | backends.SHORTCUTS | backends.CAPTURE_FORMS | DEVICE_EXTRAS
    assert exported <= allowed, exported - allowed
    for name in exported & (backends.SHORTCUTS | backends.CAPTURE_FORMS):
        assert callable(getattr(be, name)), name


def test_required_and_optional_do_not_overlap():
    assert not backends.REQUIRED & backends.ACCELERATIONS


def test_accelerated_answers_from_the_declaration(monkeypatch):
    cpu = backends.get_backend("cpu")
    t = nbgrad.ones(2)
    monkeypatch.setattr(_graph, "ACCELERATIONS_ON", True)
    assert _graph.accelerated(t, "mul_backward")
    assert not _graph.accelerated(t, "unary")               # a primitive is no acceleration
    monkeypatch.setattr(cpu, "ACCELERATIONS", cpu.ACCELERATIONS - {"mul_backward"})
    assert not _graph.accelerated(t, "mul_backward")        # exported, but no longer declared
    assert _graph.acceleration(t, "mse_forward") is cpu.mse_forward
    monkeypatch.setattr(_graph, "ACCELERATIONS_ON", False)  # NBGRAD_FUSED=0
    assert not any(_graph.accelerated(t, name) for name in backends.ACCELERATIONS)
    assert _graph.acceleration(t, "mse_forward") is not cpu.mse_forward


def test_every_buffer_level_acceleration_has_a_composed_fallback():
    from nbgrad.ops import _composed
    # the others (mul/linear backward, fused_elementwise, optimizer steps) are composed
    # where they are called, tested in tests/ops/test_accelerations.py (conv2d's in tests/nn/test_conv.py,
    # interp_pass's in tests/nn/test_upsample.py, softmax_backward's under NBGRAD_FUSED=0,
    # layer norm's in tests/nn/test_layer_norm.py, the 2-norm's composed in ops/reduction.norm)
    inline = {"mul_backward", "linear_backward", "fused_elementwise", "sgd_step", "adam_step",
              "conv2d_forward", "conv2d_backward", "interp_pass", "interp_pass_backward", "softmax_backward",
              "layer_norm_forward", "layer_norm_backward", "vector_norm2",
              "fractional_max_pool"}
    assert set(_composed._FALLBACKS) == backends.ACCELERATIONS - inline
