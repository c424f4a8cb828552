"""The plain-Python meaning of the CPU kernels (NUMBA_DISABLE_JIT=1) agrees with their compiled one.

Under NUMBA_DISABLE_JIT=1 Numba runs every kernel as the Python it is written
in, on NumPy scalars, and elementwise.py binds its bit casts to NumPy views.
These tests run under the normal JIT and keep that meaning from rotting:
`kernel.py_func` is the very Python function the debugging mode runs, so
each test calls it (with the bit casts bound as that mode binds them) and
the compiled kernel on the same inputs (infinities, NaNs, denormals, signed
zeros, wrap-around) and compares.  Where both do the same IEEE operations in
the same order the results must be identical; where NumPy's and libm's
exp/log may differ in the last bit, a few ulp.  The last test runs the real
mode in a subprocess.
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit

from nbgrad.backends.cpu import elementwise as E
from nbgrad.backends._shared import fast_math as F
from nbgrad.backends.cpu import loss_kernels as L
from nbgrad.backends.cpu import reduction as R
from nbgrad.backends.cpu import strided_copy as S

FLOATS = [np.float32, np.float64]

# compiled against plain Python: needs the JIT (the last test starts the plain-Python mode itself)
pytestmark = pytest.mark.requires_jit


def special_inputs(dtype):
    """Every kind of float: random bit patterns, the switch points of the formulas, specials."""
    rng = np.random.default_rng(11)
    int_type = np.uint32 if dtype == np.float32 else np.uint64
    bits = rng.integers(0, np.iinfo(int_type).max, 1500, dtype=int_type, endpoint=True).view(dtype)
    info = np.finfo(dtype)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 0.625, -0.625, 0.5,
                float(info.tiny), float(info.tiny) / 2**10, float(info.smallest_subnormal),
                -float(info.smallest_subnormal), float(info.max), -float(info.max)]
    with np.errstate(all="ignore"):
        sweeps = np.concatenate([np.linspace(-760, 720, 301), np.linspace(-120, 100, 301),
                                 np.linspace(-2, 2, 201)]).astype(dtype)
    return np.concatenate([bits, sweeps, np.array(specials, dtype=dtype)])


def bind_bit_casts_as_plain_python(monkeypatch):
    """What elementwise.py and _shared/fast_math.py (exp and the bit casts) do at import under
    NUMBA_DISABLE_JIT=1.  Call it only after the compiled kernels of a test have run (a kernel
    compiled now would see Python functions)."""
    for module in (E, F):
        monkeypatch.setattr(module, "_float_bits", F._py_float_bits)
        monkeypatch.setattr(module, "_f32_from_bits", F._py_f32_from_bits)
        monkeypatch.setattr(module, "_f64_from_bits", F._py_f64_from_bits)
        monkeypatch.setattr(module, "_fma", F._py_fma)
    monkeypatch.setattr(E, "_wide_vectors", F._py_wide_vectors)


def assert_same_floats(got, want):
    """Identical values (signed zeros included), NaN where the other has NaN."""
    assert got.dtype == want.dtype
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all()
    same = (got[~nan] == want[~nan]) & (np.signbit(got[~nan]) == np.signbit(want[~nan]))
    assert same.all(), (got[~nan][~same][:5], want[~nan][~same][:5])


# --------------------------------------------------------------------------- #
# The bit casts of the fast transcendentals

# The compiled bit casts over arrays: a float scalar crossing into or out of a jitted
# function becomes a Python float, which may quiet a signalling NaN.
@njit
def _jitted_float_bits(x):
    out = np.empty(x.size, np.int64)
    for i in range(x.size):
        out[i] = E._float_bits(x[i])
    return out


@njit
def _jitted_f32_from_bits(bits):
    out = np.empty(bits.size, np.int64)
    for i in range(bits.size):
        out[i] = E._float_bits(E._f32_from_bits(bits[i]))
    return out


@njit
def _jitted_f64_from_bits(bits):
    out = np.empty(bits.size, np.int64)
    for i in range(bits.size):
        out[i] = E._float_bits(E._f64_from_bits(bits[i]))
    return out


@pytest.mark.parametrize("dtype, int_type", [(np.float32, np.int32), (np.float64, np.int64)])
def test_bit_casts_are_numpy_views_and_the_compiled_bitcasts(dtype, int_type):
    x = special_inputs(dtype)
    from_bits, jitted_from_bits = ((F._py_f32_from_bits, _jitted_f32_from_bits) if dtype == np.float32
                                   else (F._py_f64_from_bits, _jitted_f64_from_bits))
    python = []
    for v in x:
        bits = F._py_float_bits(v)
        assert type(bits) is int_type and bits == np.array(v).view(int_type)
        back = from_bits(bits)
        assert type(back) is dtype and np.array(back).view(int_type) == bits
        python.append(int(bits))
    assert _jitted_float_bits(x).tolist() == python
    assert jitted_from_bits(x.view(int_type)).tolist() == python


def test_bits_of_a_python_float_are_float64_bits():
    assert F._py_float_bits(-2.5) == np.array(-2.5).view(np.int64) == _jitted_float_bits(np.array([-2.5]))[0]
    assert type(F._py_float_bits(-2.5)) is np.int64


@pytest.mark.parametrize("i", [np.int64((5 << 40) | 0x3F800000), -1 << 31, np.int64(-1 << 31),
                               np.int32(-1), np.int8(-3), np.int16(0x7F80),
                               np.int64(0x3FF0000000000000), np.int64(-1)])
def test_from_bits_truncates_wider_and_sign_extends_narrower_integers_as_compiled(i):
    for python, jitted, int_type in [(F._py_f32_from_bits, _jitted_f32_from_bits, np.int32),
                                     (F._py_f64_from_bits, _jitted_f64_from_bits, np.int64)]:
        assert np.array(python(i)).view(int_type) == jitted(np.array([i]))[0]
    assert F._py_f32_from_bits(np.int64((5 << 40) | 0x3F800000)) == np.float32(1.0)
    assert np.signbit(F._py_f32_from_bits(-1 << 31)) and F._py_f32_from_bits(-1 << 31) == 0
    assert np.isnan(F._py_f64_from_bits(np.int32(-1)))        # sign-extended: all 64 bits set


# --------------------------------------------------------------------------- #
# Whole kernels: the plain-Python function (py_func) against the compiled one

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["exp", "log", "tanh", "sigmoid", "sign"])
def test_unary_kernel_in_python_gives_the_compiled_bits(monkeypatch, op, dtype):
    contiguous, strided, in_place = E._unary_kernels[op]
    x = special_inputs(dtype)
    shape = np.array([4, 50], np.int64)            # and a strided 2-D view (a step of 3)
    st = np.array([150, 3], np.int64)
    jitted, jitted2, jitted3 = np.empty_like(x), np.empty(200, dtype), x.copy()
    contiguous(x, 0, jitted)
    strided(x, 7, st, jitted2, shape)
    in_place(jitted3)
    bind_bit_casts_as_plain_python(monkeypatch)
    python, python2, python3 = np.empty_like(x), np.empty(200, dtype), x.copy()
    contiguous.py_func(x, 0, python)
    strided.py_func(x, 7, st, python2, shape)
    in_place.py_func(python3)
    assert_same_floats(python, jitted)
    assert_same_floats(python2, jitted2)
    assert_same_floats(python3, jitted3)
    assert_same_floats(jitted3, jitted)            # in place: the out-of-place kernel's bits


@pytest.mark.parametrize("fast, numpy_fn", [(E._fast_exp, np.exp), (E._fast_log, np.log),
                                            (E._fast_tanh, np.tanh)])
def test_fast_entry_points_take_numpy_for_other_types(fast, numpy_fn):
    # integers are not float32/float64: NumPy's function, as the @overload's fallback
    for v in (np.int64(3), np.int32(1), 2):
        assert fast(v) == numpy_fn(v)
    assert E._fast_sigmoid(np.int64(0)) == 0.5


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_sign_of_integers_in_python(dtype):
    contiguous = E._unary_kernels["sign"][0]
    x = np.array([-5, 0, 7, np.iinfo(dtype).min, np.iinfo(dtype).max], dtype)
    jitted, python = np.empty_like(x), np.empty_like(x)
    contiguous(x, 0, jitted)
    contiguous.py_func(x, 0, python)
    assert python.tolist() == jitted.tolist() == [-1, 0, 1, -1, 1]


@pytest.mark.parametrize("src, dst_dtype", [
    (np.array([1000, -1, 255, 128, -129, 2**40 + 3], np.int64), np.int8),
    (np.array([1000, -1, 255, 256, 2**40 + 3], np.int64), np.uint8),
    (np.array([-1.7, -0.5, 0.0, -0.0, 0.5, 2.9, 2.0**31 - 1], np.float64), np.int32),
    (np.array([-1.7, 0.0, np.nan, np.inf, -0.0, 3.0], np.float64), np.bool_),
    (np.array([True, False, True]), np.float32),
    (np.array([1e300, -1e300, 1.5, np.nan], np.float64), np.float32),
])
def test_copy_kernels_in_python_cast_as_the_compiled_store(src, dst_dtype):
    # a NumPy scalar store would refuse 1000 into int8; the kernels wrap and truncate
    kernels = S._COPY_TO_BOOL if dst_dtype == np.bool_ else S._COPY
    contiguous, _, strided = kernels
    n = src.size
    jitted, python = np.zeros(n, dst_dtype), np.zeros(n, dst_dtype)
    with np.errstate(all="ignore"):
        contiguous(src, 0, jitted, 0, n)
        contiguous.py_func(src, 0, python, 0, n)
    np.testing.assert_array_equal(python, jitted)
    assert python.dtype == dst_dtype
    shape, sst, dst_st = (np.array([2, n], np.int64), np.array([0, 1], np.int64),
                          np.array([n, 1], np.int64))
    jitted2, python2 = np.zeros(2 * n, dst_dtype), np.zeros(2 * n, dst_dtype)
    with np.errstate(all="ignore"):
        strided(src, 0, sst, jitted2, 0, dst_st, shape)
        strided.py_func(src, 0, sst, python2, 0, dst_st, shape)
    np.testing.assert_array_equal(python2, jitted2)


def test_blocked_copy_in_python_casts_as_the_compiled_store():
    _, blocked, _ = S._COPY
    src = (np.arange(70 * 66, dtype=np.int64) * 37) % 1000       # wraps in int8
    shape, sst, dst_st = (np.array([70, 66], np.int64), np.array([1, 70], np.int64),
                          np.array([66, 1], np.int64))
    jitted, python = np.zeros(70 * 66, np.int8), np.zeros(70 * 66, np.int8)
    blocked(src, 0, sst, jitted, 0, dst_st, shape)
    blocked.py_func(src, 0, sst, python, 0, dst_st, shape)
    np.testing.assert_array_equal(python, jitted)


# --------------------------------------------------------------------------- #
# Accumulation width: Numba types a sum started at 0.0 as float64; so must Python

def rows_geometry(rows, rn):
    return np.array([rows], np.int64), np.array([rn], np.int64), rn, 1


def test_var_in_python_accumulates_in_float64_and_divides_by_zero_as_numpy():
    # float32 rows whose float32 sums would be off in the last bits of the result
    x = (np.float32(1e4) + (np.arange(3000) % 7).astype(np.float32)).astype(np.float32)
    kshape, kst, rn, rs = rows_geometry(3, 1000)
    for correction in (1.0, 1000.0, 1001.0):       # divisor 999, 0, 0 (clamped)
        jitted, python = np.empty(3, np.float32), np.empty(3, np.float32)
        with np.errstate(all="ignore"):
            R._var_rows(x, 0, kshape, kst, rn, rs, correction, jitted)
            R._var_rows.py_func(x, 0, kshape, kst, rn, rs, correction, python)
        assert_same_floats(python, jitted)
    empty, python = np.empty(2, np.float32), np.empty(2, np.float32)
    with np.errstate(all="ignore"):
        R._var_rows(x, 0, np.array([2], np.int64), np.array([0], np.int64), 0, 1, 1.0, empty)
        R._var_rows.py_func(x, 0, np.array([2], np.int64), np.array([0], np.int64), 0, 1, 1.0, python)
    assert_same_floats(python, empty)


def ulp_close(got, want, ulps):
    assert got.dtype == want.dtype
    finite = np.isfinite(want)
    assert (np.isnan(got) == np.isnan(want)).all()
    assert (got[np.isinf(want)] == want[np.isinf(want)]).all()
    err = np.abs(got[finite].astype(np.float64) - want[finite].astype(np.float64))
    assert (err <= ulps * np.spacing(np.abs(want[finite]))).all(), (got, want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_and_logsumexp_in_python_sum_in_float64(dtype, monkeypatch):
    # 2000 terms: a float32 running sum would be ~1e-5 off; the exps are fast_math's formulas
    # both ways (in Python through the bit casts' NumPy meaning)
    rng = np.random.default_rng(5)
    x = rng.standard_normal(4000).astype(dtype)
    x[2000 + 17] = np.inf
    kshape, kst = np.array([2], np.int64), np.array([2000], np.int64)
    jitted = {}
    with np.errstate(all="ignore"):
        for log in (False, True):
            jitted[log] = np.empty(4000, dtype)
            R._softmax_rows(x, 0, kshape, kst, kst, 2000, 1, 1, log, False, jitted[log])
        jitted["lse"] = np.empty(2, dtype)
        R._logsumexp_rows(x, 0, kshape, kst, 2000, 1, jitted["lse"])
        bind_bit_casts_as_plain_python(monkeypatch)
        for log in (False, True):
            python = np.empty(4000, dtype)
            R._softmax_rows.py_func(x, 0, kshape, kst, kst, 2000, 1, 1, log, False, python)
            ulp_close(python, jitted[log], 4)
        python = np.empty(2, dtype)
        R._logsumexp_rows.py_func(x, 0, kshape, kst, 2000, 1, python)
    ulp_close(python, jitted["lse"], 4)
    assert python[1] == np.inf and np.isfinite(python[0])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_and_nll_in_python_work_in_float64(dtype, weighted, monkeypatch):
    x = np.array([1e4, 0.0, -1e4, 0.0, 1e4, 1e4, 0.5, -0.25, 3.0], dtype)
    target = np.array([1, 2, 0], np.int64)
    weight = np.array([0.3, 1.7, 0.9], dtype) if weighted else np.ones(1, dtype)
    outs = []
    grads = []
    for kernel, backward in ((L._ce_forward, L._ce_backward), (L._ce_forward.py_func, L._ce_backward.py_func)):
        if kernel is L._ce_forward.py_func:
            bind_bit_casts_as_plain_python(monkeypatch)     # (the compiled kernels have run)
        row_loss, lse, sums = np.empty(3), np.empty(3), np.zeros(3)
        kernel(x, 3, 3, target, weight, weighted, -100, 0.1, row_loss, lse, sums)
        outs.append((row_loss, lse, sums))
        g = np.empty(9, dtype)
        backward(x, 3, 3, outs[0][1], target, weight, weighted, -100, 0.1, np.ones(3), np.ones(3), g)
        grads.append(g)
    for got, want in zip(outs[1], outs[0]):
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    # row 1's log-sum-exp is 1e4 + log(2) in float64, not float32's 1e4 + 0.69336
    assert abs(outs[1][1][1] - 1e4 - np.log(2)) < 1e-9
    np.testing.assert_allclose(grads[1], grads[0], rtol=4 * np.finfo(dtype).eps, atol=0)
    nll = []
    for kernel in (L._nll_forward, L._nll_forward.py_func):
        row_loss, sums = np.empty(3), np.zeros(2)
        acc = dtype if dtype in (np.float32, np.float64) else np.float64    # (nll_forward's: x's dtype)
        kernel(x, 3, 3, target, weight, weighted, -100, row_loss, sums, np.zeros(8, acc), np.zeros(8, acc),
               np.zeros(1, acc))
        nll.append((row_loss, sums))
    np.testing.assert_array_equal(nll[1][0], nll[0][0])
    np.testing.assert_array_equal(nll[1][1], nll[0][1])


# --------------------------------------------------------------------------- #
# The real mode, end to end

PLAIN_PYTHON_SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    from nbgrad.backends import cpu as B
    from nbgrad.backends.cpu import elementwise as E
    from nbgrad.backends._shared import fast_math as F
    assert E._float_bits is F._py_float_bits
    x = np.array(json.loads(input()), dtype=np.float32)
    out = {op: B.unary(op, (x, 0, (x.size,), (1,)), np.dtype(np.float32)).view(np.int32).tolist()
           for op in ("exp", "log", "tanh", "sigmoid")}
    print(json.dumps(out))
""")


def test_numba_disable_jit_runs_the_same_formulas():
    values = [0.0, -0.0, 1.5, -3.25, 88.5, -103.0, 1e-40, -1e-40, 0.3, 20.0, float("inf")]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", PLAIN_PYTHON_SCRIPT], input=json.dumps(values), env=env,
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    python = json.loads(proc.stdout.strip().splitlines()[-1])
    x = np.array(values, dtype=np.float32)
    from nbgrad.backends import cpu as B
    for op, bits in python.items():
        jitted = B.unary(op, (x, 0, (x.size,), (1,)), np.dtype(np.float32))
        assert bits == jitted.view(np.int32).tolist(), op


# --------------------------------------------------------------------------- #
# Matrix products: NumPy's np.dot in Python would take other BLAS routes

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n, k, m", [(1, 1, 3), (3, 1, 1), (1, 6, 1), (4, 5, 1), (1, 5, 4), (5, 7, 3),
                                     (40, 33, 17)])
def test_matmul_kernel_in_python_calls_blas_as_the_compiled_np_dot(monkeypatch, dtype, n, k, m):
    from nbgrad.backends.cpu import linalg as LA
    rng = np.random.default_rng(n * 100 + k * 10 + m)
    a = rng.standard_normal(2 * n * k).astype(dtype)
    b = rng.standard_normal(2 * k * m).astype(dtype)
    a[0] = 0.0
    b[m - 1] = -np.inf          # gemm gives 0 * -inf = nan here, NumPy's 1x1 @ 1xm shortcut 0
    offs_a, offs_b = np.array([0, n * k], np.int64), np.array([0, k * m], np.int64)
    results = {}
    # an F layout only for a matrix that is not also C (linalg._float_operand calls those C,
    # and Python cannot tell Numba's type of a C-and-F array)
    for a_layout in (0, 1) if n > 1 and k > 1 else (0,):
        for b_layout in (0, 1) if k > 1 and m > 1 else (0,):
            out = np.empty(2 * n * m, dtype)
            LA._dot_batches(a, offs_a, a_layout, b, offs_b, b_layout, out, n, k, m)
            results[a_layout, b_layout] = out
    monkeypatch.setattr(LA, "_dot", LA._blas_dot)
    for (a_layout, b_layout), jitted in results.items():
        python = np.empty(2 * n * m, dtype)
        LA._dot_batches.py_func(a, offs_a, a_layout, b, offs_b, b_layout, python, n, k, m)
        assert_same_floats(python, jitted)


@njit
def _jitted_fma(a, b, c, out):
    for i in range(a.size):
        out[i] = E._fma(a[i], b[i], c[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fma_in_python_rounds_once_as_the_compiled_fma(dtype):
    # random products and addends, addends that nearly cancel the product (the sum's error is
    # then where a second rounding would show), and specials
    rng = np.random.default_rng(5)
    n = 3000
    a = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(dtype)
    b = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(dtype)
    c = (rng.standard_normal(n) * 2.0 ** rng.integers(-40, 40, n)).astype(dtype)
    half = n // 2
    c[:half] = -(a[:half].astype(np.float64) * b[:half].astype(np.float64)).astype(dtype)
    c[:half // 2] = np.nextafter(c[:half // 2], dtype(np.inf))
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, float(np.finfo(dtype).max)], dtype)
    grid = np.array(np.meshgrid(specials, specials, specials)).reshape(3, -1)
    a, b, c = (np.concatenate([v, g]) for v, g in zip((a, b, c), grid))
    jitted = np.empty_like(a)
    _jitted_fma(a, b, c, jitted)
    python = np.array([F._py_fma(x, y, z) for x, y, z in zip(a, b, c)], dtype)
    assert_same_floats(python, jitted)
