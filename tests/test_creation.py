"""Tensor creation: from data, filled, ranges, random draws, *_like, and in-place fills."""
import os

import numpy as np
import pytest

import nbgrad


# --- from data ------------------------------------------------------------------

def test_tensor_from_nested_lists():
    x = nbgrad.tensor([[1, 2], [3, 4.0]])
    assert x.shape == (2, 2)
    assert x.dtype == nbgrad.float32
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert nbgrad.tensor(3).shape == ()
    assert nbgrad.tensor([]).shape == (0,)
    assert nbgrad.tensor([]).dtype == nbgrad.float32


def test_tensor_with_dtype_and_requires_grad():
    x = nbgrad.tensor([1, 2], dtype=nbgrad.float64, requires_grad=True)
    assert x.dtype == nbgrad.float64
    assert x.requires_grad
    assert x.is_leaf
    assert nbgrad.tensor([1.9, -1.9], dtype=nbgrad.int64).tolist() == [1, -1]


def test_tensor_of_ragged_list_raises_valueerror():
    with pytest.raises(ValueError):
        nbgrad.tensor([[1, 2], [3]])


def test_tensor_from_numpy_scalar_and_array_dtypes():
    assert nbgrad.tensor(np.arange(3, dtype=np.int32)).dtype == nbgrad.int32
    assert nbgrad.tensor(np.float64(2.5)).dtype == nbgrad.float64
    assert nbgrad.tensor(np.arange(3.0)[::2]).tolist() == [0.0, 2.0]


def test_tensor_of_a_list_of_0dim_tensors():
    x = nbgrad.tensor([nbgrad.tensor(1.0), nbgrad.tensor(2.0)])
    assert x.tolist() == [1.0, 2.0]


def test_as_tensor_shares_numpy_memory_when_dtype_matches():
    a = np.arange(3.0)
    t = nbgrad.as_tensor(a)
    assert t.dtype == nbgrad.float64
    a[0] = 9
    assert t.tolist() == [9.0, 1.0, 2.0]


def test_as_tensor_copies_when_dtype_differs():
    a = np.arange(3.0)
    t = nbgrad.as_tensor(a, dtype=nbgrad.float32)
    a[1] = 9
    assert t.tolist() == [0.0, 1.0, 2.0]


def test_as_tensor_returns_tensor_itself():
    x = nbgrad.ones(2)
    assert nbgrad.as_tensor(x) is x
    assert nbgrad.as_tensor([1, 2]).dtype == nbgrad.int64


def test_from_numpy_rejects_non_arrays():
    with pytest.raises(TypeError):
        nbgrad.from_numpy([1, 2])


# --- filled -----------------------------------------------------------------------

@pytest.mark.parametrize("fn, value", [(nbgrad.zeros, 0), (nbgrad.ones, 1)])
def test_zeros_ones(fn, value):
    x = fn(2, 3)
    assert x.shape == (2, 3) and x.dtype == nbgrad.float32
    np.testing.assert_array_equal(x.numpy(), np.full((2, 3), value, np.float32))
    assert fn((4,), dtype=nbgrad.int64).tolist() == [value] * 4
    assert fn(2, dtype=nbgrad.bool).tolist() == [bool(value)] * 2
    assert fn(()).shape == ()
    assert fn(0, 5).shape == (0, 5)
    assert fn(2, requires_grad=True).requires_grad


def test_empty_has_shape_and_dtype():
    x = nbgrad.empty(3, 4, dtype=nbgrad.float64)
    assert x.shape == (3, 4) and x.dtype == nbgrad.float64
    assert x.is_contiguous()
    assert nbgrad.empty((2,)).dtype == nbgrad.float32


def test_full_takes_dtype_from_fill_value():
    assert nbgrad.full((2,), 3).dtype == nbgrad.int64
    assert nbgrad.full((2,), 3).tolist() == [3, 3]
    assert nbgrad.full((2,), 3.5).dtype == nbgrad.float32
    assert nbgrad.full((2,), True).dtype == nbgrad.bool
    f = nbgrad.full((2, 3), 1.5, dtype=nbgrad.float64)
    assert f.dtype == nbgrad.float64
    np.testing.assert_array_equal(f.numpy(), np.full((2, 3), 1.5))
    assert nbgrad.full([2], 2.7, dtype=nbgrad.int32).tolist() == [2, 2]


def test_arange():
    x = nbgrad.arange(5)
    assert x.dtype == nbgrad.int64
    assert x.tolist() == [0, 1, 2, 3, 4]
    assert nbgrad.arange(2, 8, 3).tolist() == [2, 5]
    assert nbgrad.arange(5, 0, -2).tolist() == [5, 3, 1]
    f = nbgrad.arange(0, 1, 0.25)
    assert f.dtype == nbgrad.float32
    assert f.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert nbgrad.arange(3.0).dtype == nbgrad.float32
    assert nbgrad.arange(1, 4, dtype=nbgrad.float64).tolist() == [1.0, 2.0, 3.0]
    assert nbgrad.arange(1, 4, dtype=nbgrad.float64).dtype == nbgrad.float64
    assert nbgrad.arange(0.0, 1.0, 0.3).shape == (4,)
    assert nbgrad.arange(0).shape == (0,)


def test_linspace():
    x = nbgrad.linspace(0, 1, 5)
    assert x.dtype == nbgrad.float32
    np.testing.assert_allclose(x.numpy(), np.linspace(0, 1, 5), rtol=1e-6)
    assert nbgrad.linspace(0, 10, 1).tolist() == [0.0]
    assert nbgrad.linspace(-1, 1, steps=0).shape == (0,)
    d = nbgrad.linspace(2, 3, 11, dtype=nbgrad.float64)
    assert d.dtype == nbgrad.float64
    np.testing.assert_allclose(d.numpy(), np.linspace(2, 3, 11), rtol=1e-12)


def test_eye():
    np.testing.assert_array_equal(nbgrad.eye(3).numpy(), np.eye(3, dtype=np.float32))
    np.testing.assert_array_equal(nbgrad.eye(2, 3).numpy(), np.eye(2, 3, dtype=np.float32))
    assert nbgrad.eye(2, dtype=nbgrad.int64).tolist() == [[1, 0], [0, 1]]


# --- *_like ---------------------------------------------------------------------

def test_like_functions_take_shape_and_dtype():
    base = nbgrad.ones(2, 3, dtype=nbgrad.int32)
    for fn in (nbgrad.zeros_like, nbgrad.ones_like, nbgrad.empty_like):
        y = fn(base)
        assert y.shape == (2, 3) and y.dtype == nbgrad.int32
        assert y.data_ptr() != base.data_ptr()
    assert nbgrad.zeros_like(base).tolist() == [[0] * 3] * 2
    assert nbgrad.ones_like(base, dtype=nbgrad.float64).dtype == nbgrad.float64
    assert nbgrad.full_like(base, 7).tolist() == [[7] * 3] * 2
    assert nbgrad.full_like(base, 7.9).tolist() == [[7] * 3] * 2  # cast to base's dtype
    f = nbgrad.ones(4)
    assert nbgrad.rand_like(f).shape == (4,)
    assert nbgrad.randn_like(f).dtype == nbgrad.float32
    r = nbgrad.randint_like(f, 3, 6)
    assert r.dtype == nbgrad.float32
    assert ((r >= 3) & (r < 6)).all()


def test_like_functions_preserve_layout_of_dense_tensors():
    # PyTorch's default memory_format=preserve_format keeps a transposed layout.
    t = nbgrad.ones(3, 4).t()
    assert nbgrad.zeros_like(t).stride() == (1, 4)
    assert nbgrad.empty_like(t).stride() == (1, 4)
    assert t.clone().stride() == (1, 4)
    s = nbgrad.ones(3, 4)[:, ::2]  # not dense: a contiguous result
    assert s.clone().stride() == (2, 1)
    assert nbgrad.zeros_like(s).stride() == (2, 1)


# --- random -----------------------------------------------------------------------

def test_manual_seed_makes_draws_reproducible():
    nbgrad.manual_seed(123)
    a = nbgrad.rand(5)
    b = nbgrad.randn(2, 3)
    c = nbgrad.randint(0, 100, (6,))
    nbgrad.manual_seed(123)
    np.testing.assert_array_equal(nbgrad.rand(5).numpy(), a.numpy())
    np.testing.assert_array_equal(nbgrad.randn(2, 3).numpy(), b.numpy())
    np.testing.assert_array_equal(nbgrad.randint(0, 100, (6,)).numpy(), c.numpy())
    nbgrad.manual_seed(124)
    assert not np.array_equal(nbgrad.rand(5).numpy(), a.numpy())


def test_successive_draws_differ():
    nbgrad.manual_seed(0)
    assert not np.array_equal(nbgrad.rand(8).numpy(), nbgrad.rand(8).numpy())


def test_rand():
    nbgrad.manual_seed(1)
    x = nbgrad.rand(10000)
    assert x.dtype == nbgrad.float32 and x.shape == (10000,)
    a = x.numpy()
    assert a.min() >= 0.0 and a.max() < 1.0
    assert abs(a.mean() - 0.5) < 0.02
    assert nbgrad.rand(2, 3, dtype=nbgrad.float64).dtype == nbgrad.float64
    assert nbgrad.rand((2, 3)).shape == (2, 3)


def test_randn():
    nbgrad.manual_seed(2)
    a = nbgrad.randn(20000).numpy()
    assert abs(a.mean()) < 0.03
    assert abs(a.std() - 1.0) < 0.03
    assert nbgrad.randn(3, 4).shape == (3, 4)


def test_randint():
    nbgrad.manual_seed(3)
    x = nbgrad.randint(3, 10, (4000,))
    assert x.dtype == nbgrad.int64
    a = x.numpy()
    assert a.min() == 3 and a.max() == 9
    assert set(np.unique(a)) == set(range(3, 10))
    y = nbgrad.randint(5, (2, 2))
    assert y.shape == (2, 2)
    assert ((y >= 0) & (y < 5)).all()
    assert nbgrad.randint(0, 2, (3,), dtype=nbgrad.int32).dtype == nbgrad.int32


def test_uniform_():
    nbgrad.manual_seed(4)
    x = nbgrad.empty(10000)
    ptr = x.data_ptr()
    assert x.uniform_(-2, 3) is x
    assert x.data_ptr() == ptr and x._version == 1
    a = x.numpy()
    assert a.min() >= -2 and a.max() < 3
    assert abs(a.mean() - 0.5) < 0.1


def test_normal_():
    nbgrad.manual_seed(5)
    x = nbgrad.empty(20000, dtype=nbgrad.float64)
    assert x.normal_(mean=3.0, std=0.5) is x
    assert x._version == 1
    a = x.numpy()
    assert abs(a.mean() - 3.0) < 0.02
    assert abs(a.std() - 0.5) < 0.02


def test_random_fills_into_a_noncontiguous_view_touch_only_the_view():
    x = nbgrad.zeros(4, 6)
    x[:, ::2].uniform_(1, 2)
    a = x.numpy()
    assert (a[:, 1::2] == 0).all()
    assert ((a[:, ::2] >= 1) & (a[:, ::2] < 2)).all()
    x[1].normal_()
    assert (x.numpy()[[0, 2, 3]][:, 1::2] == 0).all()


def test_fill__and_zero_():
    x = nbgrad.ones(2, 3)
    ptr = x.data_ptr()
    assert x.fill_(2.5) is x
    assert x.tolist() == [[2.5] * 3] * 2
    assert x.zero_() is x
    assert x.tolist() == [[0.0] * 3] * 2
    assert x.data_ptr() == ptr and x._version == 2
    x.t()[1].fill_(7)
    assert x.tolist() == [[0.0, 7.0, 0.0]] * 2
    i = nbgrad.zeros(2, dtype=nbgrad.int64)
    i.fill_(3.9)
    assert i.tolist() == [3, 3]
    x.fill_(nbgrad.tensor(4.0))
    assert x.tolist() == [[4.0] * 3] * 2


# PyTorch's linspace / logspace values, bit for bit (recorded from PyTorch 2.13's CPU kernels:
# linspace's halves are fused multiply-adds from start and from end, logspace's exponents a
# plain multiply and add, half precision rounded at every operation)
_SPACED = [
    ("linspace", (-1.7033088183837894, 1.3579478763313375, 9), "float32",
     ['-0x1.b40c0cp+0', '-0x1.52163cp+0', '-0x1.e040d6p-1', '-0x1.1c5534p-1', '-0x1.61a65p-3', '0x1.ae0834p-3',
      '0x1.2f6daep-1', '0x1.f3595p-1', '0x1.5ba278p+0']),
    ("linspace", (90535.58666731177, 44637.457236401126, 7), "float64",
     ['0x1.61a7962fd435bp+16', '0x1.43c5e5ff6e7c5p+16', '0x1.25e435cf08c2fp+16', '0x1.0802859ea3099p+16',
      '0x1.d441aadc7aa05p+15', '0x1.987e4a7baf2d8p+15', '0x1.5cbaea1ae3bacp+15']),
    ("linspace", (0.1, 0.3, 8), "float16",
     ['0x1.998p-4', '0x1.074p-3', '0x1.41cp-3', '0x1.7c8p-3', '0x1.b7p-3', '0x1.f18p-3', '0x1.16p-2', '0x1.334p-2']),
    ("logspace", (-1.7033088183837894, -1.3579478763313375, 8, 2.0), "float64",
     ['0x1.3a73716d03619p-2', '0x1.4563f9d986a1fp-2', '0x1.50b5f01c7f5f4p-2', '0x1.5c6cb7ec8858bp-2',
      '0x1.688bd3302e399p-2', '0x1.7516e30ac97bcp-2', '0x1.8211a8f2b2b3bp-2', '0x1.8f8007d124949p-2']),
    ("logspace", (0.5, 2.3, 7, 3.7), "float32",
     ['0x1.ec6d04p+0', '0x1.6c8fdcp+1', '0x1.0de63cp+2', '0x1.8fa24ap+2', '0x1.27dd52p+3', '0x1.b6147ap+3',
      '0x1.4453dep+4']),
]


@pytest.mark.parametrize("fn, args, dtype, expected", _SPACED)
def test_linspace_and_logspace_carry_pytorchs_bits(fn, args, dtype, expected):
    if fn == "logspace":
        start, end, steps, base = args
        got = nbgrad.logspace(start, end, steps, base=base, dtype=getattr(nbgrad, dtype))
    else:
        got = nbgrad.linspace(*args, dtype=getattr(nbgrad, dtype))
    assert [float(v).hex() for v in got.tolist()] == [float.fromhex(h).hex() for h in expected]


def test_linspace_of_an_integer_dtype_truncates_each_value():
    assert nbgrad.linspace(-3.7, 1000.2, 6, dtype=nbgrad.int64).tolist() == [-3, 197, 398, 598, 799, 1000]
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        nbgrad.logspace(-1.2, -0.4, 1, base=-2.0, dtype=nbgrad.int64)


# PyTorch's arange with a fractional step, bit for bit: Vectorized<T>::arange lanes from each
# vector's base (rounded to the dtype), fused multiply-adds, the last elements one by one.
# Recorded from PyTorch 2.13's CPU kernel on a 2-thread AVX2 machine; on an AVX512 one its
# vectors (and so these bits) differ, and nbgrad follows the CPU it runs on.
def test_arange_with_a_fractional_step_matches_an_exact_model():
    import fractions

    def fma(a, b, c):
        return float(fractions.Fraction(a) * fractions.Fraction(b) + fractions.Fraction(c))

    # PyTorch's float32 lanes: 16 where its CPU capability is AVX512 (avx512f/bw/vl/dq), else 8
    try:
        flags = set(open("/proc/cpuinfo").read().split())
    except OSError:
        flags = set()
    avx512 = {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags
    lanes = 16 if avx512 and os.environ.get("ATEN_CPU_CAPABILITY", "avx512").lower() == "avx512" else 8
    for dtype, width in ((nbgrad.float32, lanes), (nbgrad.float64, lanes // 2)):
        start, step, n = -0.8019314252534474, -1.5464613575653838, 45
        got = nbgrad.arange(start, start + step * n, step, dtype=dtype).tolist()
        rnd = np.float32 if dtype is nbgrad.float32 else np.float64
        want = []
        nv = n // (2 * width) * (2 * width)
        for i in range(n):
            if i < nv:
                c = i // width * width
                base = float(rnd(fma(step, c, start)))
                want.append(float(rnd(fma(i - c, step, base))) if i > c else base)
            else:
                want.append(float(rnd(fma(step, i, start))))
        assert got == want
    assert nbgrad.arange(0, 1, 0.1).tolist()[3] == float(np.float32(0.30000001192092896))


def test_factories_take_layout_and_pin_memory_as_pytorch():
    # (library code writes torch.zeros(shape, dtype=x.dtype, layout=x.layout, device=x.device);
    # nbgrad's factories refused layout= and most refused pin_memory=)
    x = nbgrad.ones(2, 3)
    for make in (lambda **k: nbgrad.zeros(2, 3, **k), lambda **k: nbgrad.ones(2, 3, **k),
                 lambda **k: nbgrad.empty(2, 3, **k), lambda **k: nbgrad.full((2, 3), 1.5, **k),
                 lambda **k: nbgrad.zeros_like(x, **k), lambda **k: nbgrad.full_like(x, 2, **k),
                 lambda **k: nbgrad.rand(2, 3, **k), lambda **k: nbgrad.randn(2, 3, **k),
                 lambda **k: nbgrad.randint(0, 5, (2, 3), **k), lambda **k: nbgrad.arange(6, **k),
                 lambda **k: nbgrad.linspace(0, 1, 6, **k), lambda **k: nbgrad.eye(3, **k),
                 lambda **k: nbgrad.randperm(6, **k), lambda **k: nbgrad.empty_strided((2, 3), (3, 1), **k)):
        assert make(layout=x.layout, pin_memory=False).layout == nbgrad.strided
        with pytest.raises(TypeError):
            make(layout=3)
        if not nbgrad.cuda.is_available():
            with pytest.raises(RuntimeError, match="^pin_memory=True requires a CUDA or other accelerator backend"):
                make(pin_memory=True)
