"""nbgrad.fuse: a traced elementwise function as one forward and one backward kernel.

Values come from float64 NumPy; gradients from hand-derived NumPy formulas and
from finite differences (gradcheck); the fused results must also equal the
same function run unfused, op by op."""
import math

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck
from nbgrad.backends.cpu import fused as cpu_fused

RNG = np.random.default_rng(7)


def leaf(values, dtype=nbgrad.float64):
    return nbgrad.tensor(np.asarray(values), dtype=dtype, requires_grad=True)


def w1(x, w):
    return (x * w + 1).tanh() * x


def test_w1_values_and_gradients_match_numpy():
    xn, wn = RNG.standard_normal(1000), RNG.standard_normal(1000)
    x, w = leaf(xn), leaf(wn)
    y = nbgrad.fuse(w1)(x, w)
    t = np.tanh(xn * wn + 1)
    np.testing.assert_allclose(y.detach().numpy(), t * xn, rtol=1e-14, atol=1e-15)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t + xn * wn * (1 - t * t), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(w.grad.numpy(), xn * xn * (1 - t * t), rtol=1e-13, atol=1e-14)


@pytest.mark.acceleration
def test_w1_is_one_fused_node():
    y = nbgrad.fuse(w1)(leaf(RNG.standard_normal(8)), leaf(RNG.standard_normal(8)))
    assert type(y.grad_fn).__name__ == "FusedBackward0"
    assert [type(f).__name__ for f, _ in y.grad_fn.next_functions] == ["AccumulateGrad", "AccumulateGrad"]


UNARY = {
    "exp": (lambda x: x.exp(), np.exp, (-3, 3)),
    "log": (lambda x: x.log(), np.log, (0.1, 4)),
    "tanh": (lambda x: x.tanh(), np.tanh, (-4, 4)),
    "sigmoid": (lambda x: x.sigmoid(), lambda v: 1 / (1 + np.exp(-v)), (-6, 6)),
    "relu": (lambda x: x.relu(), lambda v: np.maximum(v, 0), (-2, 2)),
    "sqrt": (lambda x: x.sqrt(), np.sqrt, (0.1, 4)),
    "sin": (lambda x: x.sin(), np.sin, (-3, 3)),
    "cos": (lambda x: x.cos(), np.cos, (-3, 3)),
    "abs": (lambda x: x.abs(), np.abs, (-2, 2)),
    "square": (lambda x: x.square(), np.square, (-2, 2)),
    "neg": (lambda x: -x, np.negative, (-2, 2)),
    "pow3": (lambda x: x ** 3, lambda v: v ** 3, (-2, 2)),
    "pow_half": (lambda x: x ** 0.5, np.sqrt, (0.1, 4)),
    "pow_neg1": (lambda x: x ** -1, lambda v: 1 / v, (0.5, 3)),
    "pow0": (lambda x: x ** 0 + x, lambda v: 1 + v, (-2, 2)),
    "rdiv": (lambda x: 2.0 / x, lambda v: 2.0 / v, (0.5, 3)),
    "rsub": (lambda x: 1 - x, lambda v: 1 - v, (-2, 2)),
    "rpow": (lambda x: 2.0 ** x, lambda v: 2.0 ** v, (-2, 2)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [nbgrad.float32, nbgrad.float64])
def test_each_op_matches_its_unfused_self(name, dtype):
    fn, ref, (lo, hi) = UNARY[name]
    xn = RNG.uniform(lo, hi, 257)
    x = leaf(xn, dtype)
    y = nbgrad.fuse(fn)(x)
    tol = 1e-12 if dtype is nbgrad.float64 else 2e-6
    np.testing.assert_allclose(y.detach().numpy(), ref(xn), rtol=tol, atol=tol)
    y.sum().backward()
    fused_grad = x.grad.numpy().copy()
    x.grad = None
    fn(x).sum().backward()                       # the same function, op by op
    np.testing.assert_allclose(fused_grad, x.grad.numpy(), rtol=10 * tol, atol=10 * tol)


def test_gradcheck_of_a_composite_function():
    f = nbgrad.fuse(lambda x, y, z: (x * y - z / (y * y + 1)).sigmoid() * x.exp() + (z - x).relu() ** 2)
    inputs = [leaf(RNG.uniform(-1, 1, (3, 4))) for _ in range(3)]
    assert gradcheck(f, inputs)


def test_second_derivatives_go_through_recorded_ops():
    f = nbgrad.fuse(lambda x, y: (x * y).tanh() * x)
    inputs = [leaf(RNG.uniform(-1, 1, 5)) for _ in range(2)]
    assert gradgradcheck(f, inputs)


def test_broadcasting_and_one_element_inputs_reduce_gradients_to_their_shapes():
    f = nbgrad.fuse(lambda a, b, c: a * b + c.exp())
    an, bn, cn = RNG.standard_normal((3, 1)), RNG.standard_normal(4), RNG.standard_normal(())
    a, b, c = leaf(an), leaf(bn), leaf(cn)
    y = f(a, b, c)
    assert y.shape == (3, 4)
    np.testing.assert_allclose(y.detach().numpy(), an * bn + np.exp(cn), rtol=1e-14)
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full((3, 1), bn.sum()), rtol=1e-13)
    np.testing.assert_allclose(b.grad.numpy(), np.full(4, an.sum()), rtol=1e-13)
    np.testing.assert_allclose(c.grad.numpy(), 12 * np.exp(cn), rtol=1e-13)
    assert a.grad.shape == (3, 1) and b.grad.shape == (4,) and c.grad.shape == ()


def test_non_contiguous_inputs_and_upstream_gradients():
    f = nbgrad.fuse(lambda x, y: x * y.sin())
    xn, yn = RNG.standard_normal((4, 3)), RNG.standard_normal((3, 4))
    x, y = leaf(xn), leaf(yn)
    out = f(x, y.t())
    np.testing.assert_allclose(out.detach().numpy(), xn * np.sin(yn.T), rtol=1e-14)
    g = nbgrad.tensor(RNG.standard_normal((3, 4)), dtype=nbgrad.float64).t()   # a strided gradient
    out.backward(g)
    np.testing.assert_allclose(x.grad.numpy(), g.numpy() * np.sin(yn.T), rtol=1e-13)
    np.testing.assert_allclose(y.grad.numpy(), (g.numpy() * xn * np.cos(yn.T)).T, rtol=1e-13)


def test_python_numbers_are_inputs_not_constants():
    f = nbgrad.fuse(lambda x, s: x * s + s ** 2)
    x = leaf([1.0, 2.0])
    np.testing.assert_array_equal(f(x, 2.0).detach().numpy(), [6.0, 8.0])
    np.testing.assert_array_equal(f(x, 3).detach().numpy(), [12.0, 15.0])
    assert len(f.traces) == 1                     # one trace for both values: no recompiling
    f(x, 0.5).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.5, 0.5])


def test_dtypes_promote_like_the_unfused_ops():
    f = nbgrad.fuse(lambda a, b: a * b + 1)
    a32 = nbgrad.ones(3, dtype=nbgrad.float32, requires_grad=True)
    b64 = nbgrad.ones(3, dtype=nbgrad.float64)
    out = f(a32, b64)
    assert out.dtype == nbgrad.float64
    out.sum().backward()
    assert a32.grad.dtype == nbgrad.float32
    ints = f(nbgrad.arange(3), nbgrad.arange(3))
    assert ints.dtype == nbgrad.get_default_dtype()
    np.testing.assert_array_equal(ints.numpy(), [1.0, 2.0, 5.0])


def test_nan_and_inf_follow_the_unfused_ops():
    f = nbgrad.fuse(lambda x: x.relu() + x.abs() * 0 + x.exp())
    x = nbgrad.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0], dtype=nbgrad.float32, requires_grad=True)
    fused = f(x)
    plain = x.relu() + x.abs() * 0 + x.exp()
    np.testing.assert_array_equal(fused.detach().numpy(), plain.detach().numpy())
    fused.sum().backward()
    g = x.grad.numpy().copy()
    x.grad = None
    plain.sum().backward()
    np.testing.assert_array_equal(g, x.grad.numpy())


def test_no_grad_records_nothing_and_empty_inputs_work():
    f = nbgrad.fuse(w1)
    x = leaf([1.0, 2.0])
    with nbgrad.no_grad():
        y = f(x, x)
    assert y.grad_fn is None and not y.requires_grad
    empty = f(nbgrad.zeros(0, 3), nbgrad.zeros(3))
    assert empty.shape == (0, 3)


def test_in_place_change_of_a_saved_input_is_caught():
    f = nbgrad.fuse(w1)
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = f(x * 1, w)
    w.data.add_(1)                       # .data: not seen by autograd, as in PyTorch
    z = x * 1
    out = f(z, w)
    z.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    y.sum().backward()


def test_what_cannot_be_fused_is_refused_with_a_clear_error():
    with pytest.raises(TypeError, match="not supported inside a fused function"):
        nbgrad.fuse(lambda x: x.sum())(nbgrad.ones(2))
    with pytest.raises(TypeError, match="cannot branch"):
        nbgrad.fuse(lambda x: x if x else x)(nbgrad.ones(2))
    with pytest.raises(TypeError, match="takes tensors and Python numbers"):
        nbgrad.fuse(lambda x, y: x * y)(nbgrad.ones(2), [1.0, 2.0])
    with pytest.raises(TypeError, match="needs at least one tensor"):
        nbgrad.fuse(lambda x: x * 2)(3.0)
    with pytest.raises(TypeError, match="must return one tensor"):
        nbgrad.fuse(lambda x: (x, x))(nbgrad.ones(2))
    with pytest.raises(RuntimeError, match="must match the size"):
        nbgrad.fuse(lambda x, y: x * y)(nbgrad.ones(2), nbgrad.ones(3))


def test_repeated_subexpressions_are_computed_once():
    f = nbgrad.fuse(lambda x: (x * 2).tanh() + (x * 2).tanh())
    f(nbgrad.ones(3))
    program = f.traces[1].forward
    assert sum(1 for ins in program if ins[0] == "tanh") == 1


def test_large_inputs_split_across_threads_give_the_same_result(monkeypatch):
    from nbgrad.backends.cpu import _threads
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS_MEMORY", 1)
    xn, wn = RNG.standard_normal(10_001), RNG.standard_normal(10_001)
    x, w = leaf(xn), leaf(wn)
    nbgrad.fuse(w1)(x, w).sum().backward()
    t = np.tanh(xn * wn + 1)
    np.testing.assert_allclose(x.grad.numpy(), t + xn * wn * (1 - t * t), rtol=1e-13, atol=1e-14)


def test_generated_source_is_named_by_the_helpers_it_calls(monkeypatch, tmp_path):
    # The kernel calls elementwise.py's jitted helpers: a change there must give a new
    # file (and a fresh compile), never a stale cached kernel.
    monkeypatch.setenv("NBGRAD_FUSED_DIR", str(tmp_path))
    monkeypatch.setattr(cpu_fused, "_kernels", cpu_fused.KernelCache())
    program = (("input", 0), ("tanh", 0))
    x = np.linspace(-2, 2, 5)
    (out,) = cpu_fused.fused_elementwise(program, (1,), [(x, 0, "v")], 5, np.float64)
    np.testing.assert_allclose(out, np.tanh(x), rtol=1e-15)
    first = sorted(p.name for p in tmp_path.glob("nbgrad_fused_*.py"))
    monkeypatch.setattr(cpu_fused, "_kernels", cpu_fused.KernelCache())
    monkeypatch.setattr(cpu_fused, "_helpers_hash", lambda: "edited")
    cpu_fused.fused_elementwise(program, (1,), [(x, 0, "v")], 5, np.float64)
    second = sorted(p.name for p in tmp_path.glob("nbgrad_fused_*.py"))
    assert len(first) == 1 and len(second) == 2


def test_the_backward_kernel_reads_saved_transcendentals_instead_of_recomputing():
    f = nbgrad.fuse(w1)
    x, w = leaf([0.5, -1.0]), leaf([2.0, 0.25])
    f(x, w).sum().backward()
    outputs, backward, _ = f.traces[2].saving_program()
    forward = f.traces[2].forward
    assert [forward[j][0] for j in outputs[1:]] == ["tanh"]
    assert not any(ins[0] == "tanh" for ins in backward)


def test_gradcheck_with_many_saved_forward_values():
    f = nbgrad.fuse(lambda x, y: (x.exp() * y).tanh() + x.sigmoid() * x.sqrt() + y ** x + (x * y).log())
    inputs = [leaf(RNG.uniform(0.2, 1.0, 7)) for _ in range(2)]
    assert gradcheck(f, inputs)
    assert len(f.traces[2].saving_program()[0]) > 3
