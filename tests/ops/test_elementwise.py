"""Elementwise ops against NumPy float64 references, over broadcast shapes and strided layouts."""
import operator

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import nbgrad

SETTINGS = settings(max_examples=20, deadline=None)
NP_DTYPE = {nbgrad.float32: np.float32, nbgrad.float64: np.float64,
            nbgrad.int32: np.int32, nbgrad.int64: np.int64, nbgrad.bool: np.bool_}
LAYOUTS = ["contiguous", "transposed", "sliced"]


# --- values and layouts --------------------------------------------------------------

def values(rng, shape, domain):
    """Random float64 values of `shape` drawn from a named domain."""
    if domain == "real":
        return rng.uniform(-3, 3, shape)
    if domain == "pos":
        return rng.uniform(0.1, 3, shape)
    if domain == "nonzero":
        return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 2, shape)
    if domain == "exp":
        return rng.uniform(-5, 5, shape)
    if domain == "log1p":
        return rng.uniform(-0.9, 3, shape)
    if domain == "halves":  # exact in float32, includes ties for round()
        return rng.integers(-10, 11, shape) * 0.5
    if domain == "quarters":
        return rng.integers(-40, 41, shape) * 0.25
    if domain == "pow2":  # divisors for which floor-division is exact
        return rng.choice([-4.0, -2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 4.0], shape)
    if domain == "ints":
        return rng.integers(-9, 10, shape).astype(np.float64)
    if domain == "nonzero_ints":
        return rng.choice([-4, -3, -2, -1, 1, 2, 3, 5], shape).astype(np.float64)
    if domain == "small_ints":  # so that equalities happen
        return rng.integers(-2, 3, shape).astype(np.float64)
    raise ValueError(domain)


def make(rng, shape, domain, dtype, layout):
    """(numpy view, nbgrad tensor) with equal values; the tensor is laid out as asked."""
    shape = tuple(shape)
    np_dtype = NP_DTYPE[dtype]
    if layout == "transposed":
        rev = tuple(reversed(range(len(shape))))
        base = values(rng, shape[::-1], domain).astype(np_dtype)
        return base.transpose(rev), nbgrad.tensor(base).permute(rev)
    if layout == "sliced":
        base = values(rng, tuple(2 * n + 1 for n in shape), domain).astype(np_dtype)
        index = tuple(slice(1, None, 2) for _ in shape)
        return base[index], nbgrad.tensor(base)[index]
    base = values(rng, shape, domain).astype(np_dtype)
    return base, nbgrad.tensor(base)


def tolerances(dtype):
    if dtype == nbgrad.float32:
        return dict(rtol=2e-6, atol=1e-6)
    if dtype == nbgrad.float64:
        return dict(rtol=1e-12, atol=1e-12)
    return dict(rtol=0, atol=0)


def check(result, ref, dtype):
    assert result.dtype == dtype
    assert tuple(result.shape) == ref.shape
    np.testing.assert_allclose(result.numpy().astype(np.float64), ref, **tolerances(dtype))


seeds = st.integers(0, 2**32 - 1)
layouts = st.sampled_from(LAYOUTS)
float_dtypes = st.sampled_from([nbgrad.float32, nbgrad.float64])
shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=5)
pair_shapes = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=1, max_side=4)


# --- unary -------------------------------------------------------------------------

def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


UNARY = {
    # name: (numpy float64 reference, domain)
    "neg": (np.negative, "real"),
    "abs": (np.abs, "real"),
    "exp": (np.exp, "exp"),
    "log": (np.log, "pos"),
    "log1p": (np.log1p, "log1p"),
    "expm1": (np.expm1, "exp"),
    "sqrt": (np.sqrt, "pos"),
    "rsqrt": (lambda x: 1 / np.sqrt(x), "pos"),
    "sin": (np.sin, "real"),
    "cos": (np.cos, "real"),
    "tanh": (np.tanh, "real"),
    "sigmoid": (_sigmoid, "exp"),
    "relu": (lambda x: np.maximum(x, 0), "real"),
    "sign": (np.sign, "halves"),
    "floor": (np.floor, "quarters"),
    "ceil": (np.ceil, "quarters"),
    "round": (np.round, "halves"),  # half to even
    "reciprocal": (np.reciprocal, "nonzero"),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(shape=shapes, layout=layouts, dtype=float_dtypes, seed=seeds)
def test_unary_function_and_method(name, shape, layout, dtype, seed):
    ref_fn, domain = UNARY[name]
    a, x = make(np.random.default_rng(seed), shape, domain, dtype, layout)
    ref = ref_fn(a.astype(np.float64))
    if name == "relu":
        out = nbgrad.relu(x)
    else:
        out = getattr(nbgrad, name)(x)
    check(out, ref, dtype)
    check(getattr(x, name)(), ref, dtype)


def test_unary_operators():
    x = nbgrad.tensor([[-1.5, 2.0], [0.0, 3.0]])
    assert (-x).tolist() == [[1.5, -2.0], [-0.0, -3.0]]
    assert abs(x).tolist() == [[1.5, 2.0], [0.0, 3.0]]
    assert (+x).tolist() == x.tolist()


def test_round_is_half_to_even():
    x = nbgrad.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6])
    assert x.round().tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 2.0, 3.0]


def test_sign_of_zero_and_ints():
    assert nbgrad.tensor([-2.0, 0.0, 3.0]).sign().tolist() == [-1.0, 0.0, 1.0]
    s = nbgrad.tensor([-2, 0, 3]).sign()
    assert s.dtype == nbgrad.int64 and s.tolist() == [-1, 0, 1]


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "tanh", "sigmoid", "rsqrt", "reciprocal"])
def test_float_unary_ops_on_ints_give_default_float(name):
    a = np.array([1, 2, 4])
    out = getattr(nbgrad, name)(nbgrad.tensor(a))
    assert out.dtype == nbgrad.float32
    ref_fn = UNARY[name][0]
    np.testing.assert_allclose(out.numpy(), ref_fn(a.astype(np.float64)), rtol=2e-6)


@pytest.mark.parametrize("name", ["neg", "abs", "relu", "floor", "ceil", "round", "sign"])
@pytest.mark.parametrize("dtype", [nbgrad.int32, nbgrad.int64], ids=["int32", "int64"])
def test_int_preserving_unary_ops(name, dtype):
    a = np.array([-3, 0, 2, 7])
    out = getattr(nbgrad, name)(nbgrad.tensor(a, dtype=dtype))
    assert out.dtype == dtype
    ref = UNARY[name][0](a)
    assert out.tolist() == ref.astype(np.int64).tolist()


def test_special_values():
    x = nbgrad.tensor([0.0, -1.0, float("inf")])
    assert x.log().tolist()[0] == float("-inf")
    assert np.isnan(x.log().tolist()[1])
    assert x.sqrt().tolist()[2] == float("inf")
    assert nbgrad.tensor([0.0]).reciprocal().tolist() == [float("inf")]
    big = nbgrad.tensor([-1000.0, 1000.0])
    assert big.sigmoid().tolist() == [0.0, 1.0]
    assert big.tanh().tolist() == [-1.0, 1.0]
    assert big.exp().tolist() == [0.0, float("inf")]


def test_negation_of_bool_raises():
    with pytest.raises(RuntimeError):
        -nbgrad.tensor([True, False])


# --- binary ------------------------------------------------------------------------

BINARY = {
    # name: (nbgrad call, numpy float64 reference, domain of a, domain of b)
    "add": (operator.add, np.add, "real", "real"),
    "sub": (operator.sub, np.subtract, "real", "real"),
    "mul": (operator.mul, np.multiply, "real", "real"),
    "truediv": (operator.truediv, np.true_divide, "real", "nonzero"),
    "floordiv": (operator.floordiv, np.floor_divide, "quarters", "pow2"),
    "mod": (operator.mod, np.mod, "quarters", "pow2"),
    "pow": (operator.pow, np.power, "pos", "real"),
    "maximum": (nbgrad.maximum, np.maximum, "small_ints", "small_ints"),
    "minimum": (nbgrad.minimum, np.minimum, "small_ints", "small_ints"),
    "add_fn": (nbgrad.add, np.add, "real", "real"),
    "sub_fn": (nbgrad.sub, np.subtract, "real", "real"),
    "mul_fn": (nbgrad.mul, np.multiply, "real", "real"),
    "div_fn": (nbgrad.div, np.true_divide, "real", "nonzero"),
    "pow_fn": (nbgrad.pow, np.power, "pos", "real"),
    "add_method": (lambda x, y: x.add(y), np.add, "real", "real"),
    "mul_method": (lambda x, y: x.mul(y), np.multiply, "real", "real"),
    "div_method": (lambda x, y: x.div(y), np.true_divide, "real", "nonzero"),
    "sub_method": (lambda x, y: x.sub(y), np.subtract, "real", "real"),
    "pow_method": (lambda x, y: x.pow(y), np.power, "pos", "real"),
    "remainder": (nbgrad.remainder, np.mod, "quarters", "pow2"),
    "floor_divide": (nbgrad.floor_divide, np.floor_divide, "quarters", "pow2"),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(shapes2=pair_shapes, layout_a=layouts, layout_b=layouts, dtype=float_dtypes, seed=seeds)
def test_binary_float_broadcast_strided(name, shapes2, layout_a, layout_b, dtype, seed):
    fn, ref_fn, dom_a, dom_b = BINARY[name]
    rng = np.random.default_rng(seed)
    a, x = make(rng, shapes2.input_shapes[0], dom_a, dtype, layout_a)
    b, y = make(rng, shapes2.input_shapes[1], dom_b, dtype, layout_b)
    ref = ref_fn(a.astype(np.float64), b.astype(np.float64))
    check(fn(x, y), ref, dtype)


INT_BINARY = {
    "add": (operator.add, np.add, "ints"),
    "sub": (operator.sub, np.subtract, "ints"),
    "mul": (operator.mul, np.multiply, "ints"),
    "floordiv": (operator.floordiv, np.floor_divide, "nonzero_ints"),
    "mod": (operator.mod, np.mod, "nonzero_ints"),
    "maximum": (nbgrad.maximum, np.maximum, "ints"),
    "minimum": (nbgrad.minimum, np.minimum, "ints"),
}


@pytest.mark.parametrize("name", sorted(INT_BINARY))
@SETTINGS
@given(shapes2=pair_shapes, layout_a=layouts, layout_b=layouts,
       dtype=st.sampled_from([nbgrad.int32, nbgrad.int64]), seed=seeds)
def test_binary_int_broadcast_strided(name, shapes2, layout_a, layout_b, dtype, seed):
    fn, ref_fn, dom_b = INT_BINARY[name]
    rng = np.random.default_rng(seed)
    a, x = make(rng, shapes2.input_shapes[0], "ints", dtype, layout_a)
    b, y = make(rng, shapes2.input_shapes[1], dom_b, dtype, layout_b)
    ref = ref_fn(a.astype(np.int64), b.astype(np.int64))
    out = fn(x, y)
    assert out.dtype == dtype
    assert tuple(out.shape) == ref.shape
    np.testing.assert_array_equal(out.numpy(), ref)


def test_int_floor_division_and_remainder_follow_python_signs():
    a = nbgrad.tensor([7, -7, 7, -7])
    b = nbgrad.tensor([2, 2, -2, -2])
    assert (a // b).tolist() == [3, -4, -4, 3]
    assert (a % b).tolist() == [1, 1, -1, -1]
    f = nbgrad.tensor([7.0, -7.0, 7.0, -7.0])
    assert (f % nbgrad.tensor([2.0, 2.0, -2.0, -2.0])).tolist() == [1.0, 1.0, -1.0, -1.0]
    assert (f // 2).tolist() == [3.0, -4.0, 3.0, -4.0]


def test_int_pow():
    a = nbgrad.tensor([1, 2, 3, -2])
    assert (a ** 3).tolist() == [1, 8, 27, -8]
    assert (a ** nbgrad.tensor([0, 1, 2, 3])).tolist() == [1, 2, 9, -8]
    with pytest.raises(RuntimeError):
        a ** -1


@pytest.mark.parametrize("op, ref", [
    (operator.add, np.add), (operator.sub, np.subtract), (operator.mul, np.multiply),
    (operator.truediv, np.true_divide), (operator.pow, np.power), (operator.floordiv, np.floor_divide),
    (operator.mod, np.mod),
], ids=["add", "sub", "mul", "truediv", "pow", "floordiv", "mod"])
@pytest.mark.parametrize("scalar", [2, 0.5, -1.5])
@pytest.mark.filterwarnings("ignore:invalid value encountered in power:RuntimeWarning")  # (-1.5) ** 0.5 is NaN
def test_scalar_and_reverse_forms(op, ref, scalar):
    a = np.array([[0.5, 1.0, 2.0], [4.0, 0.25, 1.5]], dtype=np.float32)
    x = nbgrad.tensor(a)
    tol = dict(rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(op(x, scalar).numpy(), ref(a.astype(np.float64), scalar), **tol)
    np.testing.assert_allclose(op(scalar, x).numpy(), ref(scalar, a.astype(np.float64)), **tol)
    np.testing.assert_allclose(op(x.t(), scalar).numpy(), ref(a.T.astype(np.float64), scalar), **tol)
    assert op(scalar, x).dtype == nbgrad.float32


def test_reverse_forms_with_int_tensor():
    x = nbgrad.tensor([1, 2, 4])
    assert (10 - x).tolist() == [9, 8, 6]
    assert (10 // x).tolist() == [10, 5, 2]
    assert (10 % x).tolist() == [0, 0, 2]
    assert (2 ** x).tolist() == [2, 4, 16]
    assert (1 / x).tolist() == [1.0, 0.5, 0.25]
    assert (1 / x).dtype == nbgrad.float32


def test_add_and_sub_with_alpha():
    x = nbgrad.tensor([1.0, 2.0])
    y = nbgrad.tensor([10.0, 20.0])
    assert nbgrad.add(x, y, alpha=2).tolist() == [21.0, 42.0]
    assert x.sub(y, alpha=0.5).tolist() == [-4.0, -8.0]


def test_maximum_minimum_propagate_nan():
    nan = float("nan")
    a = nbgrad.tensor([1.0, nan, 3.0])
    b = nbgrad.tensor([nan, 0.0, 2.0])
    mx, mn = nbgrad.maximum(a, b).tolist(), nbgrad.minimum(a, b).tolist()
    assert np.isnan(mx[0]) and np.isnan(mx[1]) and mx[2] == 3.0
    assert np.isnan(mn[0]) and np.isnan(mn[1]) and mn[2] == 2.0


def test_maximum_promotes():
    out = nbgrad.maximum(nbgrad.tensor([1, 5]), nbgrad.tensor([2.5, 0.0]))
    assert out.dtype == nbgrad.float32
    assert out.tolist() == [2.5, 5.0]


# --- clamp ---------------------------------------------------------------------------

@SETTINGS
@given(shape=shapes, layout=layouts, dtype=float_dtypes, seed=seeds,
       lo=st.sampled_from([None, -1.0, 0.5]), hi=st.sampled_from([None, 1.0, 2.5]))
def test_clamp_with_scalars(shape, layout, dtype, seed, lo, hi):
    if lo is None and hi is None:
        lo = 0.0
    a, x = make(np.random.default_rng(seed), shape, "real", dtype, layout)
    ref = np.clip(a.astype(np.float64), lo, hi)
    check(nbgrad.clamp(x, lo, hi), ref, dtype)
    check(x.clamp(min=lo, max=hi), ref, dtype)


def test_clamp_with_broadcast_tensor_bounds():
    x = nbgrad.tensor([[-2.0, 0.0, 2.0], [5.0, -5.0, 0.5]])
    lo = nbgrad.tensor([-1.0, 0.5, 0.0])
    hi = nbgrad.tensor([[1.0], [2.0]])
    assert x.clamp(lo, hi).tolist() == [[-1.0, 0.5, 1.0], [2.0, 0.5, 0.5]]
    assert x.clamp(max=hi).tolist() == [[-2.0, 0.0, 1.0], [2.0, -5.0, 0.5]]


def test_clamp_int_stays_int_and_float_bound_promotes():
    x = nbgrad.tensor([-3, 1, 9])
    assert x.clamp(0, 5).dtype == nbgrad.int64
    assert x.clamp(0, 5).tolist() == [0, 1, 5]
    assert x.clamp(min=1.5).dtype == nbgrad.float32
    assert x.clamp(min=1.5).tolist() == [1.5, 1.5, 9.0]


def test_clamp_without_bounds_raises():
    with pytest.raises(RuntimeError):
        nbgrad.tensor([1.0]).clamp()


# --- comparisons and logic -----------------------------------------------------------

COMPARISONS = {
    "eq": (operator.eq, np.equal), "ne": (operator.ne, np.not_equal),
    "lt": (operator.lt, np.less), "le": (operator.le, np.less_equal),
    "gt": (operator.gt, np.greater), "ge": (operator.ge, np.greater_equal),
}


@pytest.mark.parametrize("name", sorted(COMPARISONS))
@SETTINGS
@given(shapes2=pair_shapes, layout_a=layouts, layout_b=layouts,
       dtype=st.sampled_from([nbgrad.float32, nbgrad.int64]), seed=seeds)
def test_comparisons(name, shapes2, layout_a, layout_b, dtype, seed):
    op, ref_fn = COMPARISONS[name]
    rng = np.random.default_rng(seed)
    a, x = make(rng, shapes2.input_shapes[0], "small_ints", dtype, layout_a)
    b, y = make(rng, shapes2.input_shapes[1], "small_ints", dtype, layout_b)
    ref = ref_fn(a, b)
    for out in (op(x, y), getattr(x, name)(y), getattr(nbgrad, name)(x, y)):
        assert out.dtype == nbgrad.bool
        assert tuple(out.shape) == ref.shape
        np.testing.assert_array_equal(out.numpy(), ref)
    np.testing.assert_array_equal(op(x, 0).numpy(), ref_fn(a, 0))


def test_comparisons_with_nan():
    x = nbgrad.tensor([float("nan"), 1.0])
    assert (x == x).tolist() == [False, True]
    assert (x != x).tolist() == [True, False]
    assert (x < 2).tolist() == [False, True]


LOGICAL = {
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
}


@pytest.mark.parametrize("name", sorted(LOGICAL))
@SETTINGS
@given(shapes2=pair_shapes, layout_a=layouts, layout_b=layouts, seed=seeds)
def test_logical_binary(name, shapes2, layout_a, layout_b, seed):
    rng = np.random.default_rng(seed)
    a, x = make(rng, shapes2.input_shapes[0], "small_ints", nbgrad.float32, layout_a)
    b, y = make(rng, shapes2.input_shapes[1], "small_ints", nbgrad.int64, layout_b)
    ref = LOGICAL[name](a, b)
    for out in (getattr(nbgrad, name)(x, y), getattr(x, name)(y)):
        assert out.dtype == nbgrad.bool
        np.testing.assert_array_equal(out.numpy(), ref)


def test_logical_not_and_bool_operators():
    x = nbgrad.tensor([0.0, 3.0, -1.0])
    assert nbgrad.logical_not(x).tolist() == [True, False, False]
    assert x.logical_not().dtype == nbgrad.bool
    p = nbgrad.tensor([True, True, False, False])
    q = nbgrad.tensor([True, False, True, False])
    assert (p & q).tolist() == [True, False, False, False]
    assert (p | q).tolist() == [True, True, True, False]
    assert (p ^ q).tolist() == [False, True, True, False]
    assert (~p).tolist() == [False, False, True, True]


# --- in-place -------------------------------------------------------------------------

INPLACE = {
    # name: (call on (x, y), numpy reference on (a, b), domain of a, domain of b)
    "add_": (lambda x, y: x.add_(y), np.add, "real", "real"),
    "sub_": (lambda x, y: x.sub_(y), np.subtract, "real", "real"),
    "mul_": (lambda x, y: x.mul_(y), np.multiply, "real", "real"),
    "div_": (lambda x, y: x.div_(y), np.true_divide, "real", "nonzero"),
    "pow_": (lambda x, y: x.pow_(y), np.power, "pos", "real"),
    "copy_": (lambda x, y: x.copy_(y), lambda a, b: np.broadcast_to(b, a.shape), "real", "real"),
    "iadd": (operator.iadd, np.add, "real", "real"),
    "isub": (operator.isub, np.subtract, "real", "real"),
    "imul": (operator.imul, np.multiply, "real", "real"),
    "itruediv": (operator.itruediv, np.true_divide, "real", "nonzero"),
    "clamp_": (lambda x, y: x.clamp_(min=y), np.maximum, "real", "real"),
}


@st.composite
def target_and_source_shapes(draw):
    """A target shape and a source shape that broadcasts to exactly the target."""
    target = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    kept = draw(st.integers(0, len(target)))
    source = tuple(n if draw(st.booleans()) else 1 for n in target[len(target) - kept:])
    return target, source


@pytest.mark.parametrize("name", sorted(INPLACE))
@SETTINGS
@given(shapes2=target_and_source_shapes(), layout_a=layouts, layout_b=layouts, dtype=float_dtypes, seed=seeds)
def test_inplace_broadcast_into_strided_target(name, shapes2, layout_a, layout_b, dtype, seed):
    fn, ref_fn, dom_a, dom_b = INPLACE[name]
    rng = np.random.default_rng(seed)
    a, x = make(rng, shapes2[0], dom_a, dtype, layout_a)
    b, y = make(rng, shapes2[1], dom_b, dtype, layout_b)
    root = x if x._base is None else x._base
    outside_before = root.numpy().copy()
    ptr, ident, version = x.data_ptr(), id(x), x._version
    ref = ref_fn(a.astype(np.float64), b.astype(np.float64))
    inside_mask = np.zeros(root.shape, bool)
    if layout_a == "sliced":
        inside_mask[tuple(slice(1, None, 2) for _ in shapes2[0])] = True
    else:
        inside_mask[...] = True
    out = fn(x, y)
    assert out is x
    assert id(x) == ident and x.data_ptr() == ptr
    assert x._version == version + 1
    check(x, ref, dtype)
    # elements of the base outside the written view are untouched
    np.testing.assert_array_equal(root.numpy()[~inside_mask], outside_before[~inside_mask])


def test_relu__and_clamp__in_place():
    x = nbgrad.tensor([[-1.0, 2.0], [3.0, -4.0]])
    v = x.t()
    assert v.relu_() is v
    assert x.tolist() == [[0.0, 2.0], [3.0, 0.0]]
    assert x._version == 1
    assert x.clamp_(1.0, 2.5) is x
    assert x.tolist() == [[1.0, 2.0], [2.5, 1.0]]
    assert x._version == 2


def test_copy__casts_and_broadcasts():
    x = nbgrad.zeros(2, 3, dtype=nbgrad.int32)
    x.copy_(nbgrad.tensor([1.9, -2.7, 3.0], dtype=nbgrad.float64))
    assert x.dtype == nbgrad.int32
    assert x.tolist() == [[1, -2, 3], [1, -2, 3]]
    f = nbgrad.zeros(3, 2)
    f.t().copy_(nbgrad.tensor([[1, 2, 3], [4, 5, 6]]))
    assert f.tolist() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    b = nbgrad.zeros(3, dtype=nbgrad.bool)
    b.copy_(nbgrad.tensor([0, 2, -1]))
    assert b.tolist() == [False, True, True]


def test_inplace_with_self_as_argument():
    x = nbgrad.tensor([1.0, 2.0, 3.0])
    x.mul_(x)
    assert x.tolist() == [1.0, 4.0, 9.0]
    x += x
    assert x.tolist() == [2.0, 8.0, 18.0]


def test_pow__with_scalar_and_int_target():
    x = nbgrad.tensor([1.0, 2.0, 3.0])
    assert x.pow_(2) is x
    assert x.tolist() == [1.0, 4.0, 9.0]
    i = nbgrad.tensor([1, 2, 3])
    i.pow_(2)
    assert i.tolist() == [1, 4, 9]


def test_inplace_cannot_broadcast_the_target():
    x = nbgrad.ones(3)
    with pytest.raises(RuntimeError):
        x.add_(nbgrad.ones(2, 3))
    assert x.tolist() == [1.0, 1.0, 1.0]
    assert x._version == 0


# --- empty and 0-dim ---------------------------------------------------------------------

def test_ops_on_empty_tensors():
    x = nbgrad.zeros(0, 3)
    assert (x + 1).shape == (0, 3)
    assert (x * nbgrad.ones(3)).shape == (0, 3)
    assert x.exp().shape == (0, 3)
    assert (x + nbgrad.ones(1, 3)).shape == (0, 3)


def test_zero_dim_with_zero_dim_is_zero_dim():
    out = nbgrad.tensor(2.0) * nbgrad.tensor(3.0)
    assert out.shape == ()
    assert out.item() == 6.0
