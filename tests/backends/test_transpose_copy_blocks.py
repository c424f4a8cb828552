"""The blocked (transposing) copy kernel against NumPy, on every block edge.

The blocked kernel stages 256x256 blocks; these shapes put partial blocks on
either side, sides just below and above the 64-element selection threshold,
steps (src's dense stride != 1), reversed axes (negative strides), strided
destinations, 3-D permutes, every kind of cast, and the thread split.
"""
import numpy as np
import pytest

from nbgrad.backends import cpu as B
from nbgrad.backends.cpu import _threads


def as_view(base, arr):
    """(buf, offset, shape, strides) in elements of numpy view `arr` over 1-D `base`."""
    item = base.itemsize
    off = (arr.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    return (base, off, arr.shape, tuple(s // item for s in arr.strides))


def values(rng, n, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        return rng.integers(-50 if dtype.kind == "i" else 0, 50, size=n).astype(dtype)
    return rng.uniform(-9.0, 9.0, size=n).astype(dtype)


def check(rng, src_arr_fn, shape, src_dtype, dst_dtype, dst_kind="contiguous"):
    """Copy src_arr_fn(base) into a dst of `dst_kind`; compare with numpy and check untouched bytes."""
    src_base = values(rng, 4 * int(np.prod(shape)) + 64, src_dtype)
    src = src_arr_fn(src_base)
    assert src.shape == shape
    n = int(np.prod(shape))
    if dst_kind == "contiguous":
        dst_base = values(rng, n + 7, dst_dtype)
        dst = dst_base[3:3 + n].reshape(shape)
    elif dst_kind == "stepped":          # dst's innermost stride is 2
        dst_base = values(rng, 2 * n + 9, dst_dtype)
        dst = dst_base[5:5 + 2 * n:2].reshape(shape)
    elif dst_kind == "reversed":         # dst rows written backwards
        dst_base = values(rng, n + 7, dst_dtype)
        dst = dst_base[3:3 + n].reshape(shape)[..., ::-1]
    else:
        raise ValueError(dst_kind)
    before = dst_base.copy()
    B.copy(as_view(src_base, src), as_view(dst_base, dst))
    np.testing.assert_array_equal(dst, src.astype(dst_dtype))
    outside = np.ones(dst_base.size, bool)
    positions = np.arange(dst_base.size)
    outside[as_strided_positions(positions, dst_base, dst)] = False
    np.testing.assert_array_equal(dst_base[outside], before[outside])


def as_strided_positions(positions, base, arr):
    _, off, shape, strides = as_view(base, arr)
    return np.lib.stride_tricks.as_strided(
        positions[off:], shape, tuple(s * positions.itemsize for s in strides)).ravel()


def transposed(rows, cols):
    return lambda b: b[:rows * cols].reshape(rows, cols).T


SHAPES_2D = [(1, 1), (63, 65), (64, 64), (65, 64), (64, 300), (256, 256),
             (257, 1000), (1000, 257), (511, 513), (300, 70)]


@pytest.mark.parametrize("shape", SHAPES_2D)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_, np.uint8])
def test_transpose_same_dtype(rng, shape, dtype):
    check(rng, transposed(shape[1], shape[0]), shape, dtype, dtype)


@pytest.mark.parametrize("src_dtype,dst_dtype", [
    (np.float32, np.int64), (np.float32, np.bool_), (np.float64, np.float32),
    (np.bool_, np.float32), (np.int32, np.float64), (np.int64, np.bool_), (np.uint8, np.int16)])
@pytest.mark.parametrize("shape", [(70, 65), (257, 300)])
def test_transpose_with_cast(rng, shape, src_dtype, dst_dtype):
    check(rng, transposed(shape[1], shape[0]), shape, src_dtype, dst_dtype)


@pytest.mark.parametrize("shape", [(70, 65), (300, 260)])
@pytest.mark.parametrize("dst_kind", ["contiguous", "stepped", "reversed"])
def test_transpose_strided_geometries(rng, shape, dst_kind):
    r, c = shape
    # src's dense dim with a step of 3, and with both axes reversed
    stepped = lambda b: b[:(c) * (3 * r)].reshape(c, 3 * r)[:, ::3].T  # noqa: E731
    flipped = lambda b: b[:r * c].reshape(c, r)[::-1, ::-1].T          # noqa: E731
    for src_fn in (stepped, flipped, transposed(c, r)):
        check(rng, src_fn, shape, np.float32, np.float32, dst_kind)
        check(rng, src_fn, shape, np.float64, np.int32, dst_kind)


@pytest.mark.parametrize("perm", [(1, 0, 2), (2, 1, 0), (0, 2, 1), (2, 0, 1)])
def test_3d_permutes(rng, perm):
    base_shape = (3, 70, 130)
    shape = tuple(base_shape[p] for p in perm)
    n = int(np.prod(base_shape))
    check(rng, lambda b: b[:n].reshape(base_shape).transpose(perm), shape, np.float32, np.float32)
    check(rng, lambda b: b[:n].reshape(base_shape).transpose(perm), shape, np.int64, np.bool_)


def test_row_of_blocks_slice(rng):
    # a transposed window out of a wider matrix: src rows of stride 1100
    check(rng, lambda b: b[:600 * 1100].reshape(600, 1100)[7:590, 13:1013].T,
          (1000, 583), np.float32, np.float32)


@pytest.mark.parametrize("shape", [(65, 64), (700, 300), (1000, 257)])
@pytest.mark.parametrize("dst_kind", ["contiguous", "stepped"])
def test_transpose_thread_split(rng, monkeypatch, shape, dst_kind):
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS_MEMORY", 1)
    monkeypatch.setattr(_threads, "SPLIT_FLOOR", 1, raising=False)
    check(rng, transposed(shape[1], shape[0]), shape, np.float32, np.float32, dst_kind)
    check(rng, transposed(shape[1], shape[0]), shape, np.float64, np.bool_, dst_kind)


@pytest.fixture
def rng():
    return np.random.default_rng(77)


# Broadcast sources (0 strides) take the strided kernel's sliced rows: a fill per
# row for a 0 inner stride, a plain row copy for a repeated row -- never the
# transposing kernel.
BROADCASTS = {
    "scalar": lambda b, shape: np.broadcast_to(b[5:6].reshape(1, 1), shape),
    "row": lambda b, shape: np.broadcast_to(b[3:3 + shape[1]].reshape(1, shape[1]), shape),
    "column": lambda b, shape: np.broadcast_to(b[7:7 + shape[0]].reshape(shape[0], 1), shape),
    "stepped_row": lambda b, shape: np.broadcast_to(b[1:1 + 2 * shape[1]:2].reshape(1, shape[1]), shape),
}


@pytest.mark.parametrize("kind", sorted(BROADCASTS))
@pytest.mark.parametrize("shape", [(1, 1), (3, 70), (300, 257)])
@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.float64, np.int64), (np.float32, np.bool_),
                                    (np.int64, np.float64)])
@pytest.mark.parametrize("dst_kind", ["contiguous", "stepped", "reversed"])
def test_broadcast_sources(rng, kind, shape, dtypes, dst_kind):
    check(rng, lambda b: BROADCASTS[kind](b, shape), shape, dtypes[0], dtypes[1], dst_kind)
