"""torch.backends.cudnn: nbgrad's GPU kernels are its own (Numba), not cuDNN's, so cuDNN is
never available and these switches change no result (nbgrad/backends/_flags.py).  For
reproducible runs use nbgrad.use_deterministic_algorithms(True), which does change nbgrad's
GPU scatters (nbgrad/_settings.py); setting `deterministic` here does not turn it on, as in
PyTorch."""
from ._flags import install, set_flags

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = 10


def is_available():
    return False


def version():
    return None


def is_acceptable(tensor):
    return False


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    return set_flags(_module, enabled=enabled, benchmark=benchmark, benchmark_limit=benchmark_limit,
                     deterministic=deterministic, allow_tf32=allow_tf32)


_module = install(__name__, {"enabled": "set_enabled_cudnn", "benchmark": "set_benchmark_cudnn",
                             "deterministic": "set_deterministic_cudnn", "allow_tf32": "set_allow_tf32_cudnn"})
