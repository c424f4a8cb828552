"""Distances in units in the last place, for tests that hold values to PyTorch's bits."""
from math import inf

import numpy as np


def ulps(got, want, dtype):
    """The distance in units in the last place of dtype between two arrays (NaN equals NaN)."""
    got, want = np.asarray(got, dtype), np.asarray(want, dtype)
    ints = np.int64 if dtype == np.float64 else np.int32

    def ordered(v):
        i = v.view(ints).astype(np.int64)
        return np.where(i < 0, np.int64(np.iinfo(ints).min) - i, i)
    d = np.abs(ordered(got) - ordered(want)).astype(np.float64)
    d[np.isnan(got) & np.isnan(want)] = 0
    d[np.isnan(got) != np.isnan(want)] = inf
    return d
