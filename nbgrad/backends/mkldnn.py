"""torch.backends.mkldnn: nbgrad does not use oneDNN (its CPU kernels are Numba's, its GEMMs
the BLAS NumPy links), so it is never available and `enabled` changes no result."""
from ._flags import install, set_flags

enabled = True
deterministic = False


def is_available():
    return False


def flags(enabled=False, deterministic=False):
    return set_flags(_module, enabled=enabled, deterministic=deterministic)


_module = install(__name__, {"enabled": "set_enabled_mkldnn", "deterministic": "set_deterministic_mkldnn"})
