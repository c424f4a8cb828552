"""matmul/@ with PyTorch's 1-D, 2-D, batched and broadcast rules; mm, bmm, dot, outer."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import nbgrad

SETTINGS = settings(max_examples=25, deadline=None)
NP_DTYPE = {nbgrad.float32: np.float32, nbgrad.float64: np.float64, nbgrad.int64: np.int64, nbgrad.int32: np.int32}
LAYOUTS = ["contiguous", "transposed", "sliced"]


def make(rng, shape, dtype, layout):
    """(numpy view, nbgrad tensor) with equal random values, the tensor laid out as asked."""
    np_dtype = NP_DTYPE[dtype]
    shape = tuple(shape)
    if dtype in (nbgrad.int32, nbgrad.int64):
        draw = lambda s: rng.integers(-5, 6, s)  # noqa: E731
    else:
        draw = lambda s: rng.uniform(-1, 1, s)  # noqa: E731
    if layout == "transposed" and len(shape) >= 2:
        # the last two dims swapped in memory: the common x.mT case
        perm = tuple(range(len(shape) - 2)) + (len(shape) - 1, len(shape) - 2)
        base = draw(tuple(shape[p] for p in perm)).astype(np_dtype)
        return base.transpose(perm), nbgrad.tensor(base).permute(perm)
    if layout == "sliced":
        base = draw(tuple(2 * n for n in shape)).astype(np_dtype)
        index = tuple(slice(None, None, 2) for _ in shape)
        return base[index], nbgrad.tensor(base)[index]
    base = draw(shape).astype(np_dtype)
    return base, nbgrad.tensor(base)


def check(out, ref, dtype, k=1):
    assert out.dtype == dtype
    assert tuple(out.shape) == np.shape(ref)
    if dtype == nbgrad.float32:
        tol = dict(rtol=1e-5, atol=1e-6 * max(k, 1))
    elif dtype == nbgrad.float64:
        tol = dict(rtol=1e-12, atol=1e-12 * max(k, 1))
    else:
        tol = dict(rtol=0, atol=0)
    np.testing.assert_allclose(out.numpy(), ref, **tol)


sides = st.integers(1, 6)
layouts = st.sampled_from(LAYOUTS)
dtypes = st.sampled_from([nbgrad.float32, nbgrad.float64, nbgrad.int64])
seeds = st.integers(0, 2**32 - 1)


@st.composite
def matmul_shapes(draw):
    """Shapes of a and b for matmul, covering 1-D, 2-D, batched and broadcast batch dims."""
    n, k, m = draw(sides), draw(sides), draw(sides)
    kind_a = draw(st.sampled_from(["1d", "2d", "batched"]))
    kind_b = draw(st.sampled_from(["1d", "2d", "batched"]))
    batch = draw(st.lists(st.integers(1, 3), min_size=1, max_size=2))

    def broadcastable(batch):
        return tuple(b if draw(st.booleans()) else 1 for b in batch)[draw(st.integers(0, len(batch) - 1)):]

    a = {"1d": (k,), "2d": (n, k), "batched": broadcastable(batch) + (n, k)}[kind_a]
    b = {"1d": (k,), "2d": (k, m), "batched": broadcastable(batch) + (k, m)}[kind_b]
    return a, b


@SETTINGS
@given(shapes=matmul_shapes(), layout_a=layouts, layout_b=layouts, dtype=dtypes, seed=seeds)
def test_matmul_matches_numpy(shapes, layout_a, layout_b, dtype, seed):
    rng = np.random.default_rng(seed)
    a, x = make(rng, shapes[0], dtype, layout_a)
    b, y = make(rng, shapes[1], dtype, layout_b)
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    k = shapes[0][-1]
    check(x @ y, ref, dtype, k)
    check(nbgrad.matmul(x, y), ref, dtype, k)
    check(x.matmul(y), ref, dtype, k)


def test_matmul_result_shapes():
    def shape(a, b):
        return tuple((nbgrad.ones(*a) @ nbgrad.ones(*b)).shape)
    assert shape((3,), (3,)) == ()
    assert shape((2, 3), (3,)) == (2,)
    assert shape((3,), (3, 4)) == (4,)
    assert shape((2, 3), (3, 4)) == (2, 4)
    assert shape((5, 2, 3), (3,)) == (5, 2)
    assert shape((3,), (5, 3, 4)) == (5, 4)
    assert shape((5, 2, 3), (3, 4)) == (5, 2, 4)
    assert shape((2, 3), (5, 3, 4)) == (5, 2, 4)
    assert shape((7, 1, 2, 3), (5, 3, 4)) == (7, 5, 2, 4)
    assert shape((1, 2, 3), (6, 3, 4)) == (6, 2, 4)


def test_matmul_values_small():
    a = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = nbgrad.tensor([[5.0, 6.0], [7.0, 8.0]])
    assert (a @ b).tolist() == [[19.0, 22.0], [43.0, 50.0]]
    assert (a @ b.t()).tolist() == [[17.0, 23.0], [39.0, 53.0]]
    assert (a @ nbgrad.tensor([1.0, 1.0])).tolist() == [3.0, 7.0]
    assert (nbgrad.tensor([1.0, 1.0]) @ a).tolist() == [4.0, 6.0]


def test_matmul_of_mixed_dtypes_raises():
    a = nbgrad.ones(2, 3, dtype=nbgrad.float64)
    b = nbgrad.ones(3, 2)
    with pytest.raises(RuntimeError):
        a @ b  # PyTorch's matmul does not promote: mixed dtypes are an error


def test_matmul_shape_mismatch_raises():
    with pytest.raises(RuntimeError):
        nbgrad.ones(2, 3) @ nbgrad.ones(4, 2)
    with pytest.raises(RuntimeError):
        nbgrad.ones(3) @ nbgrad.ones(4)
    with pytest.raises(RuntimeError):
        nbgrad.ones(2, 2, 3) @ nbgrad.ones(3, 3, 4)  # batch dims 2 and 3 do not broadcast


def test_matmul_of_0dim_raises():
    with pytest.raises(RuntimeError):
        nbgrad.tensor(2.0) @ nbgrad.ones(2)


def test_matmul_with_zero_inner_dim_gives_zeros():
    out = nbgrad.ones(2, 0) @ nbgrad.ones(0, 3)
    assert out.tolist() == [[0.0] * 3] * 2


def test_imatmul_rebinds_to_a_new_tensor():
    a = nbgrad.ones(2, 2)
    b = a
    a @= nbgrad.eye(2) * 2
    assert a.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert b.tolist() == [[1.0, 1.0], [1.0, 1.0]]


# --- mm, bmm, dot, outer -------------------------------------------------------------

@SETTINGS
@given(n=sides, k=sides, m=sides, layout_a=layouts, layout_b=layouts, dtype=dtypes, seed=seeds)
def test_mm(n, k, m, layout_a, layout_b, dtype, seed):
    rng = np.random.default_rng(seed)
    a, x = make(rng, (n, k), dtype, layout_a)
    b, y = make(rng, (k, m), dtype, layout_b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    check(nbgrad.mm(x, y), ref, dtype, k)
    check(x.mm(y), ref, dtype, k)


def test_mm_rejects_non_matrices():
    with pytest.raises(RuntimeError):
        nbgrad.mm(nbgrad.ones(3), nbgrad.ones(3, 2))
    with pytest.raises(RuntimeError):
        nbgrad.mm(nbgrad.ones(2, 3), nbgrad.ones(2, 3))


@SETTINGS
@given(bsz=st.integers(1, 4), n=sides, k=sides, m=sides, layout_a=layouts, layout_b=layouts,
       dtype=dtypes, seed=seeds)
def test_bmm(bsz, n, k, m, layout_a, layout_b, dtype, seed):
    rng = np.random.default_rng(seed)
    a, x = make(rng, (bsz, n, k), dtype, layout_a)
    b, y = make(rng, (bsz, k, m), dtype, layout_b)
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    check(nbgrad.bmm(x, y), ref, dtype, k)
    check(x.bmm(y), ref, dtype, k)


def test_bmm_does_not_broadcast():
    with pytest.raises(RuntimeError):
        nbgrad.bmm(nbgrad.ones(1, 2, 3), nbgrad.ones(4, 3, 2))
    with pytest.raises(RuntimeError):
        nbgrad.bmm(nbgrad.ones(2, 3), nbgrad.ones(3, 2))


@SETTINGS
@given(n=st.integers(1, 40), layout_a=layouts, layout_b=layouts, dtype=dtypes, seed=seeds)
def test_dot(n, layout_a, layout_b, dtype, seed):
    rng = np.random.default_rng(seed)
    a, x = make(rng, (n,), dtype, layout_a)
    b, y = make(rng, (n,), dtype, layout_b)
    ref = np.dot(a.astype(np.float64), b.astype(np.float64))
    out = nbgrad.dot(x, y)
    assert out.shape == ()
    check(out, ref, dtype, n)
    check(x.dot(y), ref, dtype, n)


def test_dot_rejects_matrices_and_length_mismatch():
    with pytest.raises(RuntimeError):
        nbgrad.dot(nbgrad.ones(2, 2), nbgrad.ones(2, 2))
    with pytest.raises(RuntimeError):
        nbgrad.dot(nbgrad.ones(2), nbgrad.ones(3))


@SETTINGS
@given(n=sides, m=sides, layout_a=layouts, layout_b=layouts, dtype=dtypes, seed=seeds)
def test_outer(n, m, layout_a, layout_b, dtype, seed):
    rng = np.random.default_rng(seed)
    a, x = make(rng, (n,), dtype, layout_a)
    b, y = make(rng, (m,), dtype, layout_b)
    ref = np.outer(a.astype(np.float64), b.astype(np.float64))
    check(nbgrad.outer(x, y), ref, dtype)
    check(x.outer(y), ref, dtype)


def test_larger_matmul_against_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 130))
    b = rng.standard_normal((130, 70))
    out = nbgrad.tensor(a) @ nbgrad.tensor(b)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-10, atol=1e-10)
    out32 = nbgrad.tensor(a, dtype=nbgrad.float32) @ nbgrad.tensor(b, dtype=nbgrad.float32).t().contiguous().t()
    np.testing.assert_allclose(out32.numpy(), a @ b, rtol=1e-4, atol=1e-4)
