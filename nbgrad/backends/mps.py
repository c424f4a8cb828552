"""torch.backends.mps: nbgrad has no Apple-GPU backend (devices are cpu and cuda)."""


def is_available():
    return False


def is_built():
    return False


def is_macos_or_newer(major, minor):
    return False
