"""dtypes, conversions and PyTorch's type-promotion rules (categories, 0-dim tensors, Python scalars)."""
import itertools

import numpy as np
import pytest

import nbgrad

DTYPES = [nbgrad.bool, nbgrad.int32, nbgrad.int64, nbgrad.float32, nbgrad.float64]
DTYPE_IDS = ["bool", "int32", "int64", "float32", "float64"]
NUMPY_OF = {nbgrad.bool: np.bool_, nbgrad.int32: np.int32, nbgrad.int64: np.int64,
            nbgrad.float32: np.float32, nbgrad.float64: np.float64}


@pytest.fixture
def default_float64():
    old = nbgrad.get_default_dtype()
    nbgrad.set_default_dtype(nbgrad.float64)
    try:
        yield
    finally:
        nbgrad.set_default_dtype(old)


# --- dtype objects ----------------------------------------------------------

def test_float32_is_the_default():
    assert nbgrad.get_default_dtype() == nbgrad.float32
    assert nbgrad.zeros(2).dtype == nbgrad.float32
    assert nbgrad.tensor([1.5]).dtype == nbgrad.float32
    assert nbgrad.tensor([1, 2]).dtype == nbgrad.int64
    assert nbgrad.tensor([True]).dtype == nbgrad.bool
    assert nbgrad.tensor([1, 2.5]).dtype == nbgrad.float32
    assert nbgrad.tensor([True, 2]).dtype == nbgrad.int64


def test_aliases():
    assert nbgrad.float is nbgrad.float32
    assert nbgrad.double is nbgrad.float64
    assert nbgrad.int is nbgrad.int32
    assert nbgrad.long is nbgrad.int64


def test_dtypes_are_distinct_and_hashable():
    assert len(set(DTYPES)) == 5
    assert {nbgrad.float32: 1}[nbgrad.float] == 1


@pytest.mark.parametrize("dt", DTYPES, ids=DTYPE_IDS)
def test_every_dtype_creates_and_round_trips_numpy(dt):
    x = nbgrad.ones(2, 3, dtype=dt)
    assert x.dtype == dt
    a = x.numpy()
    assert a.dtype == NUMPY_OF[dt]
    np.testing.assert_array_equal(a, np.ones((2, 3), dtype=NUMPY_OF[dt]))


# --- conversions --------------------------------------------------------------

def test_conversion_methods():
    x = nbgrad.tensor([1.7, -1.7, 0.0])
    assert x.double().dtype == nbgrad.float64
    assert x.float().dtype == nbgrad.float32
    assert x.long().dtype == nbgrad.int64
    assert x.int().dtype == nbgrad.int32
    assert x.bool().dtype == nbgrad.bool
    assert x.to(nbgrad.float64).dtype == nbgrad.float64
    assert x.to(dtype=nbgrad.int32).dtype == nbgrad.int32
    assert x.type(nbgrad.int64).dtype == nbgrad.int64
    assert x.bool().tolist() == [True, True, False]


def test_conversion_copies_and_leaves_source_alone():
    x = nbgrad.tensor([1.5, 2.5])
    d = x.double()
    assert d.data_ptr() != x.data_ptr()
    x.add_(1)
    assert d.tolist() == [1.5, 2.5]


def test_conversion_to_same_dtype_returns_self():
    x = nbgrad.tensor([1.5, 2.5])
    assert x.to(nbgrad.float32) is x
    assert x.float() is x


@pytest.mark.parametrize("method", ["int", "long"])
def test_float_to_int_truncates_toward_zero(method):
    x = nbgrad.tensor([1.7, -1.7, 2.5, -2.5, 0.9, -0.9, 3.0])
    assert getattr(x, method)().tolist() == [1, -1, 2, -2, 0, 0, 3]
    assert x.double().to(nbgrad.int64).tolist() == [1, -1, 2, -2, 0, 0, 3]


def test_bool_conversions():
    assert nbgrad.tensor([0, 3, -1]).bool().tolist() == [False, True, True]
    assert nbgrad.tensor([True, False]).float().tolist() == [1.0, 0.0]
    assert nbgrad.tensor([True, False]).long().tolist() == [1, 0]


def test_conversion_of_noncontiguous_view():
    x = nbgrad.arange(6.0).view(2, 3).t()
    y = x.int()
    assert y.shape == (3, 2)
    assert y.tolist() == [[0, 3], [1, 4], [2, 5]]


# --- promotion ------------------------------------------------------------------
# A reference implementation of PyTorch's result_type for these dtypes: operands are
# grouped into dimensioned tensors, 0-dim tensors and Python scalars; a lower group
# only matters when its category (bool < integer < floating) is higher.

ORDER = {nbgrad.bool: 0, nbgrad.int32: 1, nbgrad.int64: 2, nbgrad.float32: 3, nbgrad.float64: 4}


def _category(dt):
    return 0 if dt == nbgrad.bool else (1 if dt in (nbgrad.int32, nbgrad.int64) else 2)


def _promote(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a if ORDER[a] >= ORDER[b] else b


def _combine(higher, lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    if _category(higher) == 2:
        return higher
    if higher == nbgrad.bool or _category(lower) == 2:
        return _promote(higher, lower)
    return higher


def expected_result_type(*operands):
    dim = zero = wrapped = None
    for o in operands:
        if isinstance(o, bool):
            wrapped = _promote(wrapped, nbgrad.bool)
        elif isinstance(o, int):
            wrapped = _promote(wrapped, nbgrad.int64)
        elif isinstance(o, float):
            wrapped = _promote(wrapped, nbgrad.get_default_dtype())
        elif o.dim() == 0:
            zero = _promote(zero, o.dtype)
        else:
            dim = _promote(dim, o.dtype)
    return _combine(dim, _combine(zero, wrapped))


def _operand(kind, dt):
    if kind == "dim":
        return nbgrad.ones(2, dtype=dt)
    return nbgrad.ones((), dtype=dt)


@pytest.mark.parametrize("a_dt, b_dt", list(itertools.product(DTYPES, DTYPES)),
                         ids=[f"{a}-{b}" for a, b in itertools.product(DTYPE_IDS, DTYPE_IDS)])
def test_promote_types_table(a_dt, b_dt):
    expected = a_dt if ORDER[a_dt] >= ORDER[b_dt] else b_dt
    assert nbgrad.promote_types(a_dt, b_dt) == expected


@pytest.mark.parametrize("kinds", [("dim", "dim"), ("dim", "zero"), ("zero", "dim"), ("zero", "zero")])
@pytest.mark.parametrize("a_dt, b_dt", list(itertools.product(DTYPES, DTYPES)),
                         ids=[f"{a}-{b}" for a, b in itertools.product(DTYPE_IDS, DTYPE_IDS)])
def test_tensor_tensor_promotion(a_dt, b_dt, kinds):
    a, b = _operand(kinds[0], a_dt), _operand(kinds[1], b_dt)
    expected = expected_result_type(a, b)
    assert nbgrad.result_type(a, b) == expected
    out = a * b
    assert out.dtype == expected
    assert out.shape == nbgrad.broadcast_shapes(a.shape, b.shape)
    assert out.tolist() == ([1] * out.numel() if out.dim() else 1)


@pytest.mark.parametrize("scalar", [True, 3, 2.5], ids=["bool", "int", "float"])
@pytest.mark.parametrize("kind", ["dim", "zero"])
@pytest.mark.parametrize("dt", DTYPES, ids=DTYPE_IDS)
def test_tensor_scalar_promotion(dt, kind, scalar):
    a = _operand(kind, dt)
    expected = expected_result_type(a, scalar)
    assert nbgrad.result_type(a, scalar) == expected
    assert (a * scalar).dtype == expected
    assert (scalar * a).dtype == expected
    assert float((a * scalar).sum()) == pytest.approx(float(scalar) * a.numel())


def test_promotion_examples_from_the_issue():
    f32 = nbgrad.tensor([1.0, 2.0])
    i64 = nbgrad.tensor([1, 2])
    i32 = nbgrad.tensor([1, 2], dtype=nbgrad.int32)
    b = nbgrad.tensor([True, False])
    f64_0d = nbgrad.tensor(2.0, dtype=nbgrad.float64)
    assert (f32 + f64_0d).dtype == nbgrad.float32
    assert (i64 + f64_0d).dtype == nbgrad.float64
    assert (i64 + 2.5).dtype == nbgrad.float32
    assert (i64 + 2.5).tolist() == [3.5, 4.5]
    assert (b + 1).dtype == nbgrad.int64
    assert (b + 1).tolist() == [2, 1]
    assert (i32 + 5).dtype == nbgrad.int32
    assert (i32 + nbgrad.tensor(5)).dtype == nbgrad.int32
    assert (i32 + nbgrad.tensor([5])).dtype == nbgrad.int64
    assert (f32 + nbgrad.tensor([1.0], dtype=nbgrad.float64)).dtype == nbgrad.float64
    assert (i64 + nbgrad.tensor([1.0])).dtype == nbgrad.float32


def test_python_float_follows_default_dtype(default_float64):
    assert nbgrad.get_default_dtype() == nbgrad.float64
    assert nbgrad.zeros(2).dtype == nbgrad.float64
    assert nbgrad.tensor([1.5]).dtype == nbgrad.float64
    assert nbgrad.arange(3.0).dtype == nbgrad.float64
    assert (nbgrad.tensor([1, 2]) + 2.5).dtype == nbgrad.float64
    assert (nbgrad.tensor([1, 2]) / 2).dtype == nbgrad.float64
    assert nbgrad.tensor([1, 2]).dtype == nbgrad.int64
    assert (nbgrad.tensor([1.0], dtype=nbgrad.float32) + 2.5).dtype == nbgrad.float32


def test_set_default_dtype_is_restored_by_fixture():
    assert nbgrad.get_default_dtype() == nbgrad.float32


def test_set_default_dtype_rejects_integer_types():
    old = nbgrad.get_default_dtype()
    try:
        with pytest.raises(TypeError):
            nbgrad.set_default_dtype(nbgrad.int64)
    finally:
        nbgrad.set_default_dtype(old)
    assert nbgrad.get_default_dtype() == old


# --- operators and dtype of results ---------------------------------------------------

def test_true_division_of_ints_gives_float():
    a = nbgrad.tensor([1, 2, -3])
    b = nbgrad.tensor([2, 4, 2])
    q = a / b
    assert q.dtype == nbgrad.float32
    assert q.tolist() == [0.5, 0.5, -1.5]
    assert (a / 2).dtype == nbgrad.float32
    assert (nbgrad.tensor([1, 2], dtype=nbgrad.int32) / nbgrad.tensor([2, 2], dtype=nbgrad.int32)).dtype \
        == nbgrad.float32
    assert nbgrad.tensor([True]).div(2).dtype == nbgrad.float32


def test_floor_division_and_remainder_of_ints_stay_int():
    a = nbgrad.tensor([5, -5, 7, -7])
    assert (a // 2).dtype == nbgrad.int64
    assert (a // 2).tolist() == [2, -3, 3, -4]
    assert (a % 3).tolist() == [2, 1, 1, 2]
    assert (a % -3).tolist() == [-1, -2, -2, -1]


def test_pow_dtypes():
    a = nbgrad.tensor([1, 2, 3], dtype=nbgrad.int32)
    assert (a ** 2).dtype == nbgrad.int32
    assert (a ** 2).tolist() == [1, 4, 9]
    assert (a ** 2.0).dtype == nbgrad.float32
    assert (2 ** a).dtype == nbgrad.int32
    assert (2.0 ** a).dtype == nbgrad.float32


@pytest.mark.parametrize("dt", DTYPES, ids=DTYPE_IDS)
def test_comparisons_give_bool(dt):
    a = nbgrad.tensor([0, 1, 2]).to(dt)
    b = nbgrad.tensor([1, 1, 1]).to(dt)
    for r in (a == b, a != b, a < b, a <= b, a > b, a >= b, a.eq(b), a.ne(1), a.lt(1), a.gt(b)):
        assert r.dtype == nbgrad.bool
    if dt != nbgrad.bool:
        assert (a < b).tolist() == [True, False, False]
        assert (a == 1).tolist() == [False, True, False]


def test_mixed_dtype_comparison_compares_in_the_promoted_type():
    i = nbgrad.tensor([1, 2])
    assert (i < 1.5).tolist() == [True, False]
    assert (i == nbgrad.tensor([1.0, 2.5])).tolist() == [True, False]
    assert (nbgrad.tensor([1.5]) > nbgrad.tensor([1], dtype=nbgrad.int32)).tolist() == [True]


def test_bool_arithmetic():
    b = nbgrad.tensor([True, False, True])
    assert (b + b).dtype == nbgrad.bool
    assert (b + b).tolist() == [True, False, True]
    assert (b * 1.5).dtype == nbgrad.float32
    assert (b * 1.5).tolist() == [1.5, 0.0, 1.5]
    assert b.sum().dtype == nbgrad.int64
    assert b.sum().item() == 2


def test_int_sum_is_int64():
    assert nbgrad.tensor([1, 2], dtype=nbgrad.int32).sum().dtype == nbgrad.int64


# --- in-place casting rule ------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda t: t.add_(1.5),
    lambda t: t.mul_(nbgrad.tensor([1.5])),
    lambda t: t.sub_(nbgrad.tensor(0.5)),
    lambda t: t.div_(2),
], ids=["add_float", "mul_float_tensor", "sub_0dim_float", "div_int"])
def test_inplace_op_whose_result_cannot_be_cast_raises(call):
    t = nbgrad.tensor([1, 2])
    with pytest.raises(RuntimeError, match="can't be cast"):
        call(t)
    assert t.tolist() == [1, 2]
    assert t._version == 0


def test_iadd_float_into_int_raises():
    t = nbgrad.tensor([1, 2])
    with pytest.raises(RuntimeError, match="can't be cast"):
        t += 0.5
    assert t.tolist() == [1, 2]


def test_inplace_into_bool_from_int_raises():
    t = nbgrad.tensor([True, False])
    with pytest.raises(RuntimeError, match="can't be cast"):
        t.add_(1)


def test_inplace_ops_that_can_be_cast_keep_the_dtype():
    f = nbgrad.tensor([1.0, 2.0])
    f.add_(nbgrad.tensor([0.5, 0.5], dtype=nbgrad.float64))
    assert f.dtype == nbgrad.float32
    assert f.tolist() == [1.5, 2.5]
    f.mul_(nbgrad.tensor([2, 2]))
    assert f.tolist() == [3.0, 5.0]
    i = nbgrad.tensor([1, 2], dtype=nbgrad.int32)
    i.add_(nbgrad.tensor([10, 20]))
    assert i.dtype == nbgrad.int32
    assert i.tolist() == [11, 22]
    i.add_(True)
    assert i.tolist() == [12, 23]


def test_copy_and_setitem_cast_even_float_to_int():
    # copy_ and __setitem__ are plain casts, not arithmetic: they truncate.
    i = nbgrad.zeros(3, dtype=nbgrad.int64)
    i.copy_(nbgrad.tensor([1.9, -1.9, 2.5]))
    assert i.tolist() == [1, -1, 2]
    i[0] = 7.8
    assert i.tolist() == [7, -1, 2]
    b = nbgrad.zeros(2, dtype=nbgrad.bool)
    b[:] = nbgrad.tensor([0.0, 0.3])
    assert b.tolist() == [False, True]


# --- float -> narrow integer: PyTorch's CPU cast, whatever the length ---------------------

_OUT_OF_RANGE = [-2.7, -1.0, -200.5, 300.0, 70000.5, -40000.0, 255.9, 128.0, -129.0, 3e9, -3e9, 1e20]
# recorded from PyTorch 2.13 (CPU; the same for float32 and float64 sources, 12 and 1200
# elements): uint8 through int64 (its static_cast_with_inter_type), int8/int16 through int32,
# then wrapped
_RECORDED_CASTS = {
    nbgrad.uint8: [254, 255, 56, 44, 112, 192, 255, 128, 127, 0, 0, 0],
    nbgrad.int8: [-2, -1, 56, 44, 112, -64, -1, -128, 127, 0, 0, 0],
    nbgrad.int16: [-2, -1, -200, 300, 4464, 25536, 255, 128, -129, 0, 0, 0],
}


@pytest.mark.parametrize("dst", list(_RECORDED_CASTS), ids=["uint8", "int8", "int16"])
@pytest.mark.parametrize("src", [nbgrad.float32, nbgrad.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("repeats", [1, 100, 1 << 15], ids=["scalar loop", "vectorized", "split"])
def test_float_to_narrow_integer_wraps_as_pytorch_at_every_length(src, dst, repeats):
    # (a bare store let the vectorized loops saturate: float32 -2.7 -> uint8 was 254 in a
    # tensor of 4 elements and 0 in one of 8)
    x = nbgrad.tensor(_OUT_OF_RANGE, dtype=src).repeat(repeats)
    got = x.to(dst).tolist()
    assert got == _RECORDED_CASTS[dst] * repeats
    # a strided source takes the strided kernel: the same values
    assert x.reshape(repeats, -1).t().to(dst).t().reshape(-1).tolist() == _RECORDED_CASTS[dst] * repeats


def test_finfo_of_each_floating_dtype():
    # PyTorch's recorded values and reprs
    f = nbgrad.finfo(nbgrad.float16)
    assert (f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, f.dtype) == (
        16, 0.0009765625, 65504.0, -65504.0, 6.103515625e-05, 6.103515625e-05, 0.001, "float16")
    assert repr(f) == ("finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, smallest_normal=6.10352e-05, "
                       "tiny=6.10352e-05, dtype=float16)")
    assert repr(nbgrad.finfo()) == ("finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, "
                                    "smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)")
    d = nbgrad.finfo(nbgrad.float64)
    assert (d.eps, d.resolution, d.tiny, d.bits) == (2.220446049250313e-16, 1e-15, 2.2250738585072014e-308, 64)
    assert nbgrad.finfo(nbgrad.float32) == nbgrad.finfo(nbgrad.float32) != d


def test_iinfo_of_each_integer_dtype():
    assert repr(nbgrad.iinfo(nbgrad.uint8)) == "iinfo(min=0, max=255, dtype=uint8)"
    i = nbgrad.iinfo(nbgrad.int64)
    assert (i.bits, i.max, i.min, i.dtype) == (64, 9223372036854775807, -9223372036854775808, "int64")
    assert type(i.max) is int and nbgrad.iinfo(nbgrad.int16).max == 32767


@pytest.mark.parametrize("call, message", [
    (lambda: nbgrad.finfo(nbgrad.int32), r"finfo\(\) requires a floating point input type. Use .*iinfo to handle"),
    (lambda: nbgrad.iinfo(nbgrad.float32), r"iinfo\(\) requires an integer input type. Use .*finfo to handle"),
    (lambda: nbgrad.iinfo(nbgrad.bool), r"bool is not supported by .*iinfo"),
    (lambda: nbgrad.finfo("float32"), r"finfo\(\): argument 'type' \(position 1\) must be .*dtype, not str"),
])
def test_finfo_and_iinfo_refuse_the_other_kind(call, message):
    with pytest.raises(TypeError, match=message):
        call()
