"""The elementwise dispatch written once for both devices (nbgrad/backends/_shared/elementwise.py)."""
import numpy as np
import pytest

from nbgrad.backends._shared import elementwise as S


@pytest.mark.parametrize("shape, strides, path, cshape", [
    ((2, 3), [(3, 1)], S.CONTIGUOUS, [6]),
    ((2, 3), [(3, 1), (3, 1)], S.CONTIGUOUS, [6]),
    ((4,), [(1,), (0,)], S.SCALAR_B, [4]),
    ((2, 3), [(0, 0), (3, 1)], S.SCALAR_A, [6]),
    ((2, 3), [(1, 2)], S.STRIDED, [2, 3]),                  # a transposed view
    ((2, 3), [(3, 1), (0, 1)], S.STRIDED, [2, 3]),          # a broadcast row
    ((2, 3), [(3, 1), (3, 1), (1, 2)], S.STRIDED, [2, 3]),  # where with one transposed operand
    # one element: its strides drop to 0, and each operand's value sits at its offset, so
    # the contiguous kernels read it (no strided walk; values: test_one_element_operands_...)
    ((1, 1), [(0, 0), (5, 7)], S.CONTIGUOUS, [1]),
])
def test_plan_picks_the_path_of_the_coalesced_geometry(shape, strides, path, cshape):
    found = S.plan(shape, *strides)
    assert found[0] == path and found[1] == cshape
    assert [a.tolist() for a in found[3]] == found[2] and found[4].tolist() == cshape
    assert all(a.dtype == np.int64 for a in found[3])
    assert S.plan(shape, *strides) is found                # cached by geometry


@pytest.mark.parametrize("op, kind, route", [
    ("floor", "i", (S.COPY, None)), ("round", "u", (S.COPY, None)), ("trunc", "b", (S.COPY, None)),
    ("abs", "u", (S.COPY, None)), ("abs", "b", (S.COPY, None)), ("abs", "i", (S.KERNEL, "abs")),
    ("isnan", "i", (S.FILL, False)), ("isinf", "b", (S.FILL, False)), ("isfinite", "u", (S.FILL, True)),
    ("bitwise_not", "b", (S.KERNEL, "logical_not")), ("bitwise_not", "i", (S.KERNEL, "bitwise_not")),
    ("neg", "i", (S.KERNEL, "neg")),
])
def test_integer_unary_routes(op, kind, route):
    assert S.integer_unary(op, kind) == route


def test_lazy_kernels_are_made_once_per_op():
    made = []

    def factory(fn):
        made.append(fn)
        return ("kernels of", fn)
    kernels = S.LazyKernels(factory, {"neg": "f_neg", "abs": "f_abs"})
    assert kernels["neg"] == ("kernels of", "f_neg") and kernels["neg"] is kernels["neg"]
    assert made == ["f_neg"]
    with pytest.raises(KeyError):
        kernels["nope"]


def test_both_backends_run_the_same_entry_points():
    from nbgrad.backends.cpu import elementwise as cpu
    cuda = pytest.importorskip("nbgrad.backends.cuda.elementwise")
    for name in ("unary", "binary", "where", "mul_backward"):
        assert getattr(cpu, name).__code__ is getattr(cuda, name).__code__
        assert getattr(cpu, name) is not getattr(cuda, name)


@pytest.mark.parametrize("shape, strides", [((3, 4, 5), (20, 5, 1)), ((2, 3, 4, 2), (1, 2, 6, 24)),
                                            ((4, 1, 3), (0, 7, -2)), ((5,), (3,))])
def test_jump_is_the_jumps_entry_and_walks_every_position(shape, strides):
    from nbgrad.backends._shared.walk import carry, jump, jumps
    shape_a, strides_a = np.array(shape, np.int64), np.array(strides, np.int64)
    last = len(shape) - 1
    assert [jump(shape_a, strides_a, d, last) for d in range(last + 1)] == jumps(shape_a, strides_a, last).tolist()
    # an odometer stepped by jump visits the positions of the view in C order
    idx, p, seen = np.zeros(len(shape), np.int64), 0, []
    while True:
        seen.append(p)
        d = carry(idx, shape_a, last)
        if d < 0:
            break
        p += jump(shape_a, strides_a, d, last)
    assert seen == (np.indices(shape).reshape(len(shape), -1).T @ np.array(strides)).tolist()


def test_one_element_operands_at_any_offset_and_strides_take_their_own_value():
    import nbgrad
    base = nbgrad.arange(20.0).reshape(4, 5)
    a = base[2:3, 3:4]                  # offset 13, strides (5, 1)
    b = base.t()[1:2, 2:3]              # offset 11, strides (1, 5)
    c = nbgrad.tensor(-2.0).expand(1, 1)    # strides (0, 0)
    assert (a + b).tolist() == [[24.0]]
    assert (b - a).tolist() == [[-2.0]]
    assert (a * c).tolist() == [[-26.0]]
    assert (c / b).numpy().tolist() == (np.float32(-2.0) / np.float32(11.0)).reshape(1, 1).tolist()
    assert np.allclose(b.exp().numpy(), np.exp([[11.0]]))
    assert nbgrad.where(c > 0, a, b).tolist() == [[11.0]]
    assert nbgrad.where(c < 0, a, b).tolist() == [[13.0]]
