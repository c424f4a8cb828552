"""The CPU backend: the contract of nbgrad.backends, done by serial Numba kernels.

One file per kernel template, in the order data flows:
  _geometry.py     coalescing dims, contiguity, batch offsets (plain Python)
  memory.py        empty/full/arange, zero-copy to_numpy/from_numpy
  strided_copy.py  copy with cast, fill
  elementwise.py   unary, binary, where (+ their scalar functions)
  reduction.py     reduce, max_with_index, softmax
  linalg.py        matmul
  indexing.py      take, put
  sampling.py      manual_seed, uniform, normal, randint, randperm
"""
from .elementwise import BINARY_OPS, UNARY_OPS, binary, unary, where
from .indexing import put, take
from .linalg import matmul
from .memory import arange, empty, from_numpy, full, to_numpy
from .reduction import REDUCE_OPS, max_with_index, reduce, softmax
from .sampling import manual_seed, normal, randint, randperm, uniform
from .strided_copy import copy, fill
from .transfer import from_host, nonzero

__all__ = [
    "empty", "full", "arange", "to_numpy", "from_numpy", "copy", "fill",
    "unary", "binary", "where", "reduce", "max_with_index", "softmax",
    "matmul", "take", "put", "manual_seed", "uniform", "normal", "randint",
    "randperm", "from_host", "nonzero", "UNARY_OPS", "BINARY_OPS", "REDUCE_OPS",
]
