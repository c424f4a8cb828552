"""torch.backends.openmp: nbgrad is not built with OpenMP (its threads are Numba's parallel
loops and the BLAS's own; nbgrad.set_num_threads sets both)."""


def is_available():
    return False
