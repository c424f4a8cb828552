"""add_/sub_/mul_/div_ with nothing to record write straight into the tensor's memory
(elementwise.binary_into_).  They must give the out-of-place op's bits, bump the version
once, write only the tensor's own elements, and leave every other call -- and every
error -- to the general in-place path."""
import numpy as np
import pytest

import nbgrad
from nbgrad.ops import elementwise as E


def _t(values, dtype):
    return nbgrad.from_numpy(np.array(values, dtype=dtype))     # (a copy: the test keeps its values)


OPS = {"add": (lambda a, b: a + b), "sub": (lambda a, b: a - b), "mul": (lambda a, b: a * b),
       "div": (lambda a, b: a / b)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("n", [1, 16, 1000, 300_000])       # (300,000: past the threads' floor)
@pytest.mark.parametrize("other", ["number", "tensor", "itself", "0-dim"])
def test_direct_write_gives_the_out_of_place_bits(dtype, op, n, other):
    rng = np.random.default_rng(n)
    xv = rng.uniform(-2, 2, n).astype(dtype)
    yv = rng.uniform(0.5, 2, n).astype(dtype)
    x = _t(xv, dtype)
    y = {"number": 0.3, "tensor": _t(yv, dtype), "itself": x, "0-dim": _t(0.3, dtype)}[other]
    if other == "0-dim":        # (clip_grad_norm_'s g.mul_(coef)): the direct path, the number's kernel
        assert E.binary_into_(op, _t(xv, dtype), y) is True
    expected = getattr(nbgrad, op)(x, y).numpy().copy()     # before x changes
    buffer, version = x.numpy(), x._version
    out = getattr(x, op + "_")(y)
    assert out is x and x._version == version + 1
    assert x.numpy() is not None and np.shares_memory(x.numpy(), buffer)
    assert np.array_equal(x.numpy(), expected)
    operand = {"number": dtype(0.3), "tensor": yv, "itself": xv, "0-dim": dtype(0.3)}[other]
    np.testing.assert_allclose(x.numpy(), OPS[op](xv, operand), rtol=1e-6 if dtype == np.float32 else 1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("n", [16, 300_000])
def test_alpha_is_the_one_fused_multiply_add(dtype, op, n):
    rng = np.random.default_rng(1)
    x, y = _t(rng.standard_normal(n), dtype), _t(rng.standard_normal(n), dtype)
    expected = getattr(nbgrad, op)(x, y, alpha=-0.1).numpy().copy()
    getattr(x, op + "_")(y, alpha=-0.1)
    assert np.array_equal(x.numpy(), expected)


def test_the_teaching_loop_updates_parameters_in_place():
    w = nbgrad.tensor([1.0, -2.0, 3.0], requires_grad=True)
    (w * w).sum().backward()
    buffer = w.detach().numpy()
    with nbgrad.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
    assert np.shares_memory(w.detach().numpy(), buffer)
    np.testing.assert_array_equal(w.detach().numpy(), np.array([1.0, -2.0, 3.0], np.float32) * np.float32(0.8))
    assert w.is_leaf and w.requires_grad and w.grad_fn is None and w._version == 1


def test_a_window_writes_only_its_elements_and_its_base_sees_them():
    base = _t(np.arange(12.0).reshape(3, 4), np.float32)
    row = base[1]                       # row-major, offset 4
    before = base.numpy().copy()
    row.mul_(10.0)
    expected = before.copy()
    expected[1] *= 10
    assert np.array_equal(base.numpy(), expected)
    assert base._version == row._version == 1


def test_errors_are_the_general_paths():
    x = _t(np.arange(6.0), np.float32)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        x[1:].add_(x[:-1])
    assert np.array_equal(x.numpy(), np.arange(6.0, dtype=np.float32))
    leaf = nbgrad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.add_(1.0)
    i = nbgrad.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        i.add_(0.5)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        _t(np.ones(3), np.float32).add_(_t(np.ones((2, 3)), np.float32))
    assert leaf._version == 0 and i.tolist() == [1, 2, 3]


@pytest.mark.parametrize("case", ["records", "int", "strided", "other_dtype", "broadcast", "bool_number",
                                  "alpha_number", "float16", "0-dim_other_dtype", "0-dim_alpha"])
def test_calls_it_does_not_serve_take_the_general_path(case):
    """binary_into_ says False and writes nothing; the method then gives the general path's result."""
    x = _t(np.arange(1.0, 7.0), np.float32)
    args, alpha = (2.0,), 1
    if case == "records":
        x.requires_grad_()
        x = x * 1
        args = (nbgrad.ones(6, requires_grad=True),)
    elif case == "int":
        x = nbgrad.arange(6)
        args = (2,)
    elif case == "strided":
        x = _t(np.arange(12.0).reshape(3, 4), np.float32).t()
    elif case == "other_dtype":
        args = (nbgrad.ones(6, dtype=nbgrad.float64),)
    elif case == "broadcast":
        args = (nbgrad.ones(1),)
    elif case == "bool_number":
        args = (True,)
    elif case == "alpha_number":
        alpha = 3
    elif case == "float16":
        x = x.half()
    elif case == "0-dim_other_dtype":
        args = (nbgrad.tensor(2.0, dtype=nbgrad.float64),)
    elif case == "0-dim_alpha":
        args, alpha = (nbgrad.tensor(2.0),), 3
    before = x.detach().numpy().copy()
    assert E.binary_into_("add", x, *args, alpha) is False
    assert np.array_equal(x.detach().numpy(), before)
    if case not in ("alpha_number", "0-dim_alpha"):
        expected = (x + args[0]).detach().numpy()
        x.add_(*args)
        assert np.array_equal(x.detach().numpy(), expected)


def test_compiled_manual_sgd_matches_eager():
    """nbgrad.compile records the general path (the direct one is off while it captures)."""
    def step(w, x):
        w.grad = None
        (w * x).square().sum().backward()
        with nbgrad.no_grad():
            w -= 0.05 * w.grad
            w.mul_(0.99)
        return w

    rng = np.random.default_rng(3)
    xv, wv = rng.standard_normal(8).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    we, wc = _t(wv, np.float32).requires_grad_(), _t(wv, np.float32).requires_grad_()
    compiled = nbgrad.compile(step)
    x = _t(xv, np.float32)
    for _ in range(4):
        step(we, x)
        compiled(wc, x)
        np.testing.assert_allclose(wc.detach().numpy(), we.detach().numpy(), rtol=1e-6)
        assert wc._version == we._version


UNARY = ["relu", "neg", "abs", "exp", "tanh", "sigmoid", "sqrt", "log", "sin", "reciprocal", "erf", "expm1"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("n", [16, 300_000])
def test_a_unary_row_in_place_gives_the_out_of_place_bits(dtype, op, n):
    rng = np.random.default_rng(7)
    xv = rng.uniform(-3, 3, n).astype(dtype)
    if op in ("sqrt", "log"):
        xv = np.abs(xv) + dtype(0.1)
    x = _t(xv, dtype)
    expected = getattr(x, op)().numpy().copy()
    buffer = x.numpy()
    assert getattr(x, op + "_")() is x and x._version == 1
    assert np.shares_memory(x.numpy(), buffer) and np.array_equal(x.numpy(), expected)


def test_a_unary_row_in_place_writes_only_a_windows_elements():
    base = _t(np.linspace(-1, 1, 12).reshape(3, 4), np.float32)
    before = base.numpy().copy()
    base[2].relu_()
    expected = before.copy()
    expected[2] = np.maximum(expected[2], 0)
    assert np.array_equal(base.numpy(), expected) and base._version == 1


def test_a_recorded_unary_in_place_keeps_its_history():
    """tanh_ of a non-leaf that requires grad takes the general path: TanhBackward0 saves
    the written tensor, whose gradient is PyTorch's."""
    a = nbgrad.tensor([0.5, -1.0, 2.0], requires_grad=True)
    b = a * 2
    b.tanh_()
    assert b.grad_fn.name() == "TanhBackward0"
    b.sum().backward()
    y = np.tanh(np.array([1.0, -2.0, 4.0], np.float32))
    np.testing.assert_allclose(a.grad.numpy(), 2 * (1 - y * y), rtol=1e-6)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        a.exp_()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bounds", [("clamp", (-0.5, 0.5)), ("clamp", (0.25,)), ("clamp", (1, -1)),
                                    ("clamp_min", (0.0,)), ("clamp_max", (-0.1,)), ("clamp", (float("nan"), 1.0))])
@pytest.mark.parametrize("n", [16, 300_000])
def test_clamp_in_place_gives_the_out_of_place_bits(dtype, bounds, n):
    name, args = bounds
    rng = np.random.default_rng(11)
    xv = rng.uniform(-2, 2, n).astype(dtype)
    xv[::7] = np.nan
    x = _t(xv, dtype)
    expected = getattr(x, name)(*args).numpy().copy()
    assert getattr(x, name + "_")(*args) is x and x._version == 1
    assert np.array_equal(x.numpy(), expected, equal_nan=True)
    ref = xv
    if name in ("clamp", "clamp_min"):
        ref = np.where(np.isnan(ref), ref, np.maximum(ref, dtype(args[0])))
    if name == "clamp" and len(args) == 2 or name == "clamp_max":
        ref = np.where(np.isnan(ref), ref, np.minimum(ref, dtype(args[-1])))
    np.testing.assert_array_equal(x.numpy(), ref)


def test_clamp_in_place_errors_are_the_general_paths():
    x = _t(np.arange(4.0), np.float32)
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        x.clamp_(None, None)
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
        x.clamp_(-1e300, 1.0)
    assert x._version == 0 and np.array_equal(x.numpy(), np.arange(4.0, dtype=np.float32))


@pytest.mark.parametrize("call", [("clamp_", (), {"min": -0.5}), ("clamp_", (), {"max": 0.5}),
                                  ("clamp_", (-0.5,), {"max": 0.5}), ("clamp_", (), {"min": -0.5, "max": 0.5}),
                                  ("clamp_min_", (), {"min": 0.0}), ("clamp_max_", (), {"max": 0.0})])
def test_clamp_in_place_by_keyword_is_written_directly(call, monkeypatch):
    name, args, kwargs = call
    xv = np.array([-2.0, -0.25, 0.0, 0.25, 2.0, np.nan], np.float32)
    x = _t(xv, np.float32)
    expected = getattr(x, name[:-1])(*args, **kwargs).numpy().copy()
    calls = []
    original = E.clamp_into_
    monkeypatch.setattr(E, "clamp_into_", lambda *a: calls.append(a) or original(*a))
    assert getattr(x, name)(*args, **kwargs) is x and x._version == 1
    assert calls and np.array_equal(x.numpy(), expected, equal_nan=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'low'"):
        x.clamp_(low=0.0)
    assert x._version == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", [1, 0.3, -2])
@pytest.mark.parametrize("n", [16, 300_000])
def test_addcmul_addcdiv_in_place_give_the_out_of_place_bits(dtype, op, value, n, monkeypatch):
    rng = np.random.default_rng(n)
    xv, av, bv = (rng.uniform(-2, 2, n).astype(dtype) for _ in range(3))
    bv = np.abs(bv) + dtype(0.25)
    x, a, b = _t(xv, dtype), _t(av, dtype), _t(bv, dtype)
    expected = getattr(x, op)(a, b, value=value).numpy().copy()
    calls = []
    original = E.addc_into_
    monkeypatch.setattr(E, "addc_into_", lambda *args: calls.append(original(*args)) or calls[-1])
    buffer = x.numpy()
    assert getattr(x, op + "_")(a, b, value=value) is x and x._version == 1
    assert calls == [True] and np.shares_memory(x.numpy(), buffer)
    assert np.array_equal(x.numpy(), expected)
    scaled = dtype(value) * av
    ref = xv + scaled * bv if op == "addcmul" else xv + scaled / bv
    tol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(x.numpy(), ref, rtol=tol, atol=tol)


def test_addcmul_in_place_of_itself_and_the_general_paths():
    x = _t([1.0, 2.0, 3.0], np.float32)
    x.addcmul_(x, x, value=0.5)                     # x + 0.5 * x * x, read before written
    assert x.tolist() == [1.5, 4.0, 7.5]
    w = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w.addcmul_(w, w)
    y = _t([[1.0, 2.0], [3.0, 4.0]], np.float32)
    y.addcmul_(_t([1.0, 2.0], np.float32), _t([[2.0], [3.0]], np.float32))     # broadcast: general path
    assert y.tolist() == [[3.0, 6.0], [6.0, 10.0]] and y._version == 1
    with pytest.raises(RuntimeError):
        y.addcmul_(_t([1.0, 2.0, 3.0], np.float32), _t([1.0, 2.0, 3.0], np.float32))
    assert y.tolist() == [[3.0, 6.0], [6.0, 10.0]] and y._version == 1


def test_a_0_dim_operand_in_the_tensors_own_storage_is_refused_as_pytorch_refuses_it():
    # t.mul_(t[2]): the general path's overlap error (PyTorch 2.13's), nothing written
    t = nbgrad.arange(6.0)
    assert E.binary_into_("mul", t, t[2]) is False
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        t.mul_(t[2])
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and t._version == 0


# zero_ of a small row-major CPU tensor with nothing to record: NumPy's fill of its run
# (ops/inplace.zero_), not the backend's planned fill

def _count_backend_fills(monkeypatch):
    from nbgrad.backends import cpu
    calls = []
    original = cpu.fill
    monkeypatch.setattr(cpu, "fill", lambda *a, **k: (calls.append(1), original(*a, **k))[1])
    return calls


@pytest.mark.parametrize("dtype", [nbgrad.float32, nbgrad.float64, nbgrad.float16, nbgrad.int64, nbgrad.int8,
                                   nbgrad.uint8, nbgrad.bool])
def test_zero_of_a_row_major_tensor_writes_its_run_directly(monkeypatch, dtype):
    base = nbgrad.ones(5, 6, dtype=dtype)
    calls = _count_backend_fills(monkeypatch)
    for t, rows in ((base[1:3], slice(1, 3)), (base[4], 4), (base[2, 1:5], (2, slice(1, 5)))):
        version = t._version
        assert t.zero_() is t and t._version == version + 1
        assert calls == []                              # the direct path
        expected = np.ones((5, 6), dtype=bool)
        expected[rows] = False
        np.testing.assert_array_equal(base.numpy() != 0, expected)   # only the view's elements
        base.fill_(1)
        calls.clear()


def test_zero_writes_positive_zeros_and_leaves_other_calls_to_the_backend(monkeypatch):
    x = nbgrad.tensor([[-0.0, 2.0], [float("nan"), -3.0]])
    x.zero_()
    assert not np.signbit(x.numpy()).any() and (x.numpy() == 0).all()
    calls = _count_backend_fills(monkeypatch)
    m = nbgrad.ones(3, 4)
    m.t().zero_()                                       # not row-major
    nbgrad.ones(70_000).zero_()                         # past the direct path's size
    nbgrad.ones(4).expand(3, 4).zero_()                 # an expanded tensor (fill_(0) may write one)
    assert len(calls) == 3 and (m.numpy() == 0).all()


def test_zero_of_a_leaf_that_requires_grad_still_raises():
    w = nbgrad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        w.zero_()
    with nbgrad.no_grad():
        w.zero_()
    assert (w.detach().numpy() == 0).all()
    y = w * 2                                           # recorded: ZeroBackward0, not the direct path
    y.zero_()
    assert y.grad_fn.name() == "ZeroBackward0"


# copy_ between small row-major CPU tensors of one shape and dtype: NumPy's slice assignment

def _count_backend_copies(monkeypatch):
    from nbgrad.backends import cpu
    calls = []
    original = cpu.copy
    monkeypatch.setattr(cpu, "copy", lambda *a, **k: (calls.append(1), original(*a, **k))[1])
    return calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64, np.uint8, np.bool_])
def test_copy_between_row_major_tensors_is_direct_and_exact(monkeypatch, dtype):
    rng = np.random.default_rng(3)
    values = (rng.standard_normal((6, 5)) * 3).astype(dtype)
    if dtype in (np.float32, np.float64, np.float16):
        values[0, :3] = [np.nan, -0.0, np.inf]
    src_base = nbgrad.from_numpy(values.copy())
    dst_base = nbgrad.zeros(6, 5, dtype=nbgrad.from_numpy(values).dtype)
    calls = _count_backend_copies(monkeypatch)
    for dst, src, where in ((dst_base[1:4], src_base[2:5], slice(1, 4)), (dst_base[5], src_base[0], 5),
                            (dst_base, src_base, slice(None))):
        version = dst._version
        assert dst.copy_(src) is dst and dst._version == version + 1
        assert calls == []
        got = dst_base.numpy()[where]
        want = src.numpy()
        assert got.tobytes() == want.tobytes()          # bits: NaN, -0.0 and all
    assert not np.shares_memory(dst_base.numpy(), src_base.numpy())


def test_copy_leaves_casts_broadcasts_layouts_and_overlaps_to_the_general_path(monkeypatch):
    calls = _count_backend_copies(monkeypatch)
    x = nbgrad.ones(3, 4)
    x.copy_(nbgrad.arange(4.0))                         # a broadcast
    x.copy_(nbgrad.ones(3, 4, dtype=nbgrad.float64))    # a cast
    x.copy_(nbgrad.ones(4, 3).t())                      # a transposed source
    nbgrad.ones(70_000).copy_(nbgrad.zeros(70_000))     # past the direct path's size
    assert len(calls) == 4
    base = nbgrad.arange(8.0)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer"):
        base[1:5].copy_(base[0:4])                      # one storage, overlapping: PyTorch's error
    y = nbgrad.zeros(3, requires_grad=True)
    z = nbgrad.zeros(3) * 1.0
    z.copy_(y)                                          # recorded: CopyBackwards
    assert z.grad_fn.name() == "torch::autograd::CopyBackwards"
