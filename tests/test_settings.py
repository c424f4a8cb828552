"""PyTorch's process-wide switches: use_deterministic_algorithms (and its debug-mode form) with
the filling of uninitialised memory, the float32 matmul precision, set_warn_always, the
torch.backends switch modules; and typename, scalar_tensor, empty_permuted.  Expected values
are PyTorch 2.13's, recorded."""
import math
import warnings

import pytest

import nbgrad


@pytest.fixture
def deterministic():
    nbgrad.use_deterministic_algorithms(True)
    yield
    nbgrad.use_deterministic_algorithms(False)
    nbgrad.utils.deterministic.fill_uninitialized_memory = True


def test_deterministic_switch_and_debug_mode():
    assert not nbgrad.are_deterministic_algorithms_enabled() and nbgrad.get_deterministic_debug_mode() == 0
    try:
        nbgrad.use_deterministic_algorithms(True, warn_only=True)
        assert nbgrad.are_deterministic_algorithms_enabled()
        assert nbgrad.is_deterministic_algorithms_warn_only_enabled()
        assert nbgrad.get_deterministic_debug_mode() == 1
        nbgrad.set_deterministic_debug_mode("error")
        assert (nbgrad.get_deterministic_debug_mode(), nbgrad.is_deterministic_algorithms_warn_only_enabled()) == \
            (2, False)
        nbgrad.set_deterministic_debug_mode(0)
        assert not nbgrad.are_deterministic_algorithms_enabled()
        with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`, but got x"):
            nbgrad.set_deterministic_debug_mode("x")
        with pytest.raises(RuntimeError, match="expected 0, 1, or 2, but got 3"):
            nbgrad.set_deterministic_debug_mode(3)
        with pytest.raises(TypeError, match="debug_mode must be str or int"):
            nbgrad.set_deterministic_debug_mode(1.5)
        with pytest.raises(TypeError, match="must be bool, not str"):
            nbgrad.use_deterministic_algorithms("x")
        # cudnn's own switch does not turn deterministic algorithms on
        nbgrad.backends.cudnn.deterministic = True
        assert not nbgrad.are_deterministic_algorithms_enabled()
    finally:
        nbgrad.use_deterministic_algorithms(False)
        nbgrad.backends.cudnn.deterministic = False


@pytest.mark.parametrize("dtype, value", [("float32", math.nan), ("float64", math.nan), ("float16", math.nan),
                                          ("int8", 127), ("uint8", 255), ("int16", 32767),
                                          ("int32", 2147483647), ("int64", 9223372036854775807), ("bool", True)])
def test_uninitialized_memory_is_filled(deterministic, dtype, value):
    dt = getattr(nbgrad, dtype)
    x = nbgrad.ones(3, dtype=dt)
    made = [nbgrad.empty(2, 3, dtype=dt), nbgrad.empty_like(x), nbgrad.empty_strided((2, 2), (1, 2), dtype=dt),
            x.new_empty((4,)), nbgrad.empty_permuted((2, 3), (1, 0), dtype=dt)]
    for t in made:
        got = t.flatten().tolist()
        assert all(math.isnan(v) for v in got) if isinstance(value, float) else got == [value] * len(got)


def test_resize_fills_only_the_new_elements(deterministic):
    x = nbgrad.zeros(3)
    x.resize_(5)
    assert str(x.tolist()) == "[0.0, 0.0, 0.0, nan, nan]"
    y = nbgrad.zeros(4, dtype=nbgrad.int64)
    y.resize_(2)
    y.resize_(4)        # within the storage: nothing new, nothing filled
    assert y.tolist() == [0, 0, 0, 0]


def test_fill_can_be_turned_off(deterministic):
    nbgrad.utils.deterministic.fill_uninitialized_memory = False
    assert nbgrad.are_deterministic_algorithms_enabled()
    x = nbgrad.empty(64, dtype=nbgrad.int64)
    nbgrad.utils.deterministic.fill_uninitialized_memory = True
    assert nbgrad.empty(64, dtype=nbgrad.int64).tolist() == [2 ** 63 - 1] * 64
    assert x.shape == (64,)


def test_float32_matmul_precision():
    assert nbgrad.get_float32_matmul_precision() == "highest"
    try:
        nbgrad.set_float32_matmul_precision("high")
        assert nbgrad.get_float32_matmul_precision() == "high"
        with pytest.warns(UserWarning, match="x is not one of 'highest', 'high', or 'medium'"):
            nbgrad.set_float32_matmul_precision("x")
        assert nbgrad.get_float32_matmul_precision() == "high"
    finally:
        nbgrad.set_float32_matmul_precision("highest")


def test_warn_always_repeats_once_warnings():
    a = nbgrad.eye(2, dtype=nbgrad.float64) * 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nbgrad.chain_matmul(a, a)       # the once-a-process deprecation may have been given already
    assert not nbgrad.is_warn_always_enabled()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nbgrad.chain_matmul(a, a)
    assert not [w for w in caught if "chain_matmul is deprecated" in str(w.message)]
    try:
        nbgrad.set_warn_always(True)
        for _ in range(2):
            with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
                nbgrad.chain_matmul(a, a)
    finally:
        nbgrad.set_warn_always(False)


def test_backend_switch_modules():
    cudnn = nbgrad.backends.cudnn
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (True, False, False, True)
    try:
        cudnn.benchmark = True
        assert cudnn.benchmark is True
        with pytest.raises(RuntimeError, match="set_benchmark_cudnn expects a bool, but got str"):
            cudnn.benchmark = "x"
        assert cudnn.benchmark is True
        with cudnn.flags(enabled=False, deterministic=True):
            assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (False, False, True)
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (True, True, False)
    finally:
        cudnn.benchmark = False
    assert nbgrad.backends.mps.is_available() is False and nbgrad.backends.mps.is_built() is False
    nbgrad.backends.mkldnn.enabled = False
    nbgrad.backends.mkldnn.enabled = True
    with pytest.raises(RuntimeError, match="set_enabled_mkldnn expects a bool"):
        nbgrad.backends.mkldnn.enabled = 1


def test_typename():
    assert nbgrad.typename(nbgrad.ones(2, dtype=nbgrad.int64)) == nbgrad.ones(2, dtype=nbgrad.int64).type()
    assert nbgrad.typename(nbgrad.ones(2, dtype=nbgrad.float64)).endswith(".DoubleTensor")
    assert (nbgrad.typename(3.0), nbgrad.typename([1]), nbgrad.typename(None), nbgrad.typename(len),
            nbgrad.typename(int)) == ("float", "list", "NoneType", "len", "int")
    lin = nbgrad.nn.Linear(1, 1)
    assert nbgrad.typename(lin) == nbgrad.typename(nbgrad.nn.Linear) == \
        f"{type(lin).__module__}.Linear"


def test_scalar_tensor():
    t = nbgrad.scalar_tensor(3)
    assert (t.shape, t.dtype, t.item()) == ((), nbgrad.float32, 3.0)
    assert nbgrad.scalar_tensor(3, dtype=nbgrad.int64).dtype == nbgrad.int64
    assert nbgrad.scalar_tensor(True).item() == 1.0
    r = nbgrad.scalar_tensor(2, requires_grad=True)
    assert r.requires_grad and r.is_leaf and r.dtype == nbgrad.float32
    with pytest.raises(TypeError, match=r"scalar_tensor\(\): argument 's' \(position 1\) must be Number, not Tensor"):
        nbgrad.scalar_tensor(nbgrad.ones(2))


def test_empty_permuted():
    assert nbgrad.empty_permuted((2, 3, 4), (2, 0, 1)).stride() == (3, 1, 6)
    t = nbgrad.empty_permuted((2, 3), (1, 0), dtype=nbgrad.int64, requires_grad=False)
    assert (t.stride(), t.dtype) == ((1, 2), nbgrad.int64)
    with pytest.raises(RuntimeError, match="len\\(size\\) = 2 is not equal to len\\(physical_layout\\) = 1"):
        nbgrad.empty_permuted((2, 3), (0,))
    with pytest.raises(RuntimeError, match="Duplicate dim not allowed"):
        nbgrad.empty_permuted((2, 3), (0, 0))
    with pytest.raises(RuntimeError, match=r"Dimension out of range \(expected to be between 0 and 1, but got 2 at "
                                           r"index 1\)"):
        nbgrad.empty_permuted((2, 3), (0, 2))
