"""Aliasing, views and in-place semantics, stated case by case as PyTorch defines them."""
import copy
import operator

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import nbgrad


def arange(*shape, dtype=None):
    n = int(np.prod(shape))
    x = nbgrad.arange(n).view(*shape) if shape else nbgrad.tensor(0)
    return x.to(dtype) if dtype is not None else x.float()


def assert_view_of(view, base):
    """`view` is a new object over `base`'s memory: in-place changes to base show through."""
    assert view is not base
    assert view._base is (base if base._base is None else base._base)
    before = view.numpy().copy()
    base.add_(1)
    np.testing.assert_array_equal(view.numpy(), before + 1)


def assert_copy_of(result, source):
    """`result` owns new memory: in-place changes to source do not show through."""
    assert result is not source
    assert result._base is None
    before = result.numpy().copy()
    source.add_(1)
    np.testing.assert_array_equal(result.numpy(), before)


# --- assignment and in-place operators -------------------------------------

def test_assignment_is_the_same_object():
    a = nbgrad.zeros(3)
    b = a
    b.add_(1)
    assert b is a
    assert a.tolist() == [1.0, 1.0, 1.0]


def test_iadd_keeps_object_and_memory_and_bumps_version():
    a = nbgrad.zeros(3)
    ident, ptr = id(a), a.data_ptr()
    a += 1
    assert id(a) == ident and a.data_ptr() == ptr
    assert a._version == 1
    assert a.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("op, expected", [
    (operator.iadd, [3.0, 4.0]), (operator.isub, [-1.0, 0.0]),
    (operator.imul, [2.0, 4.0]), (operator.itruediv, [0.5, 1.0]),
], ids=["+=", "-=", "*=", "/="])
def test_augmented_assignment_operators_are_inplace(op, expected):
    a = nbgrad.tensor([1.0, 2.0])
    ptr = a.data_ptr()
    assert op(a, 2) is a
    assert a.tolist() == expected
    assert a.data_ptr() == ptr
    assert a._version == 1


def test_iadd_with_a_broadcast_tensor():
    a = nbgrad.zeros(2, 3)
    ident = id(a)
    a += nbgrad.tensor([1.0, 2.0, 3.0])
    assert id(a) == ident
    assert a.tolist() == [[1.0, 2.0, 3.0]] * 2


def test_add__keeps_object_and_memory_and_returns_self():
    a = nbgrad.ones(3)
    b = nbgrad.tensor([1.0, 2.0, 3.0])
    ptr = a.data_ptr()
    r = a.add_(b)
    assert r is a
    assert a.data_ptr() == ptr
    assert a._version == 1
    assert a.tolist() == [2.0, 3.0, 4.0]
    assert b.tolist() == [1.0, 2.0, 3.0]


def test_setitem_full_slice_keeps_object_and_memory():
    a = nbgrad.zeros(2, 2)
    ident, ptr = id(a), a.data_ptr()
    a[:] = nbgrad.tensor([1.0, 2.0])
    assert id(a) == ident and a.data_ptr() == ptr
    assert a._version == 1
    assert a.tolist() == [[1.0, 2.0], [1.0, 2.0]]


def test_out_of_place_add_makes_a_new_tensor():
    x = nbgrad.ones(3)
    y = nbgrad.ones(3)
    y_old, y_ptr = y, y.data_ptr()
    y = x + y
    assert y is not y_old
    assert y.data_ptr() != y_ptr
    assert y_old.tolist() == [1.0, 1.0, 1.0]
    assert y_old._version == 0
    assert y.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("call", [
    lambda t: t.add_(1), lambda t: t.sub_(1), lambda t: t.mul_(2), lambda t: t.div_(2),
    lambda t: t.pow_(2), lambda t: t.clamp_(0, 1), lambda t: t.clamp_(min=0.5),
    lambda t: t.relu_(), lambda t: t.copy_(nbgrad.zeros(3)), lambda t: t.fill_(3),
    lambda t: t.zero_(), lambda t: t.uniform_(), lambda t: t.normal_(),
    lambda t: t.masked_fill_(nbgrad.tensor([True, False, True]), 0.0),
    lambda t: t.neg_(), lambda t: t.abs_(), lambda t: t.exp_(), lambda t: t.sqrt_(),
])
def test_inplace_methods_return_self_and_bump_version(call):
    t = nbgrad.tensor([0.5, 1.5, 2.5])
    ptr = t.data_ptr()
    assert call(t) is t
    assert t.data_ptr() == ptr
    assert t._version == 1


def test_inplace_on_a_view_writes_into_the_base():
    x = nbgrad.zeros(3, 4)
    x[1].add_(5)
    x[:, 2] += 1
    assert x.tolist() == [[0, 0, 1, 0], [5, 5, 6, 5], [0, 0, 1, 0]]
    # x[:, 2] += 1 is getitem, an in-place add on the view, then setitem (a copy_): two bumps
    assert x._version == 3


# --- views ------------------------------------------------------------------

def test_view_shares_memory_and_is_a_new_object():
    x = arange(2, 3)
    v = x.view(3, 2)
    assert v is not x
    assert v.data_ptr() == x.data_ptr()
    assert v.shape == (3, 2)
    v[0, 0] = 100
    assert x[0, 0].item() == 100
    assert_view_of(v, x)


def test_view_infers_minus_one():
    x = arange(2, 3, 4)
    assert x.view(-1).shape == (24,)
    assert x.view(4, -1).shape == (4, 6)
    assert x.view(2, -1, 3).shape == (2, 4, 3)


def test_view_of_step_sliced_columns_works():
    x = arange(3, 4)
    s = x[:, ::2]
    v = s.view(6)
    assert v.stride() == (2,)
    assert v.tolist() == [0, 2, 4, 6, 8, 10]
    assert_view_of(v, x)


def test_view_of_narrowed_columns_raises():
    x = arange(3, 4)
    with pytest.raises(RuntimeError):
        x[:, :2].view(6)


def test_view_of_transpose_that_would_merge_dims_raises():
    x = arange(3, 4)
    with pytest.raises(RuntimeError):
        x.t().view(12)


def test_view_splitting_a_transposed_dim_works():
    x = arange(3, 4)
    v = x.t().view(2, 2, 3)
    assert v.stride() == (2, 1, 4)
    np.testing.assert_array_equal(v.numpy(), np.arange(12.0).reshape(3, 4).T.reshape(2, 2, 3))
    assert_view_of(v, x)


def test_view_of_expanded_tensor_keeps_zero_strides():
    x = nbgrad.arange(3.0).view(3, 1).expand(3, 4)
    v = x.view(3, 2, 2)
    assert v.stride() == (1, 0, 0)


def test_view_with_wrong_numel_raises():
    with pytest.raises(RuntimeError):
        arange(2, 3).view(4)


def _strided_source(draw):
    """A view of a contiguous arange: random shape, then random slice steps and a permutation."""
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    base_np = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    steps = [draw(st.integers(1, 2)) for _ in shape]
    perm = draw(st.permutations(range(len(shape))))
    return shape, steps, perm, base_np


@st.composite
def view_cases(draw):
    shape, steps, perm, base_np = _strided_source(draw)
    view_np = base_np[tuple(slice(None, None, s) for s in steps)].transpose(perm)
    n = view_np.size
    # a target shape with the same number of elements
    factors = []
    rest = n
    for p in (2, 3, 2, 5, 3, 7):
        while rest % p == 0 and draw(st.booleans()):
            factors.append(p)
            rest //= p
    factors.append(rest)
    if draw(st.booleans()):
        factors.insert(draw(st.integers(0, len(factors))), 1)
    return shape, steps, perm, tuple(factors)


@settings(max_examples=25, deadline=None)
@given(view_cases())
def test_view_stride_rule_matches_numpy_nocopy_reshape(case):
    shape, steps, perm, target = case
    base_np = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    src_np = base_np[tuple(slice(None, None, s) for s in steps)].transpose(perm)
    x = nbgrad.arange(int(np.prod(shape)), dtype=nbgrad.float32).view(*shape)
    src = x[tuple(slice(None, None, s) for s in steps)].permute(*perm)
    try:
        expected = src_np.reshape(target, copy=False)
    except ValueError:
        expected = None
    if expected is None:
        with pytest.raises(RuntimeError):
            src.view(*target)
        r = src.reshape(*target)  # reshape falls back to a copy
        np.testing.assert_array_equal(r.numpy(), src_np.reshape(target))
        assert_copy_of(r, x)
    else:
        v = src.view(*target)
        np.testing.assert_array_equal(v.numpy(), expected)
        strides = tuple(s // 4 for s, n in zip(expected.strides, target) if n != 1)
        assert tuple(s for s, n in zip(v.stride(), target) if n != 1) == strides
        assert v.data_ptr() == src.data_ptr()
        assert_view_of(v, x)


def test_reshape_is_a_view_when_possible():
    x = arange(2, 6)
    r = x.reshape(3, 4)
    assert r.data_ptr() == x.data_ptr()
    assert_view_of(r, x)
    r2 = x[:, ::2].reshape(6)
    assert_view_of(r2, x)


def test_reshape_copies_when_a_view_is_impossible():
    x = arange(3, 4)
    r = x.t().reshape(12)
    np.testing.assert_array_equal(r.numpy(), np.arange(12.0).reshape(3, 4).T.reshape(12))
    assert r.is_contiguous()
    assert_copy_of(r, x)


def test_view_as_and_reshape_as():
    x = arange(2, 3)
    other = nbgrad.zeros(3, 2)
    v = x.view_as(other)
    assert v.shape == (3, 2)
    assert_view_of(v, x)
    assert x.reshape_as(other).shape == (3, 2)


def test_flatten_and_unflatten_are_views():
    x = arange(2, 3, 4)
    f = x.flatten()
    assert f.shape == (24,)
    assert_view_of(f, x)
    f1 = x.flatten(1)
    assert f1.shape == (2, 12)
    assert_view_of(f1, x)
    f01 = x.flatten(0, 1)
    assert f01.shape == (6, 4)
    u = x.unflatten(2, (2, 2))
    assert u.shape == (2, 3, 2, 2)
    assert_view_of(u, x)
    u2 = x.unflatten(-1, (-1, 2))
    assert u2.shape == (2, 3, 2, 2)


def test_flatten_of_noncontiguous_copies():
    x = arange(3, 4)
    f = x.t().flatten()
    np.testing.assert_array_equal(f.numpy(), np.arange(12.0).reshape(3, 4).T.ravel())
    assert_copy_of(f, x)


def test_squeeze_and_unsqueeze_are_views():
    x = arange(1, 3, 1, 2)
    s = x.squeeze()
    assert s.shape == (3, 2)
    assert_view_of(s, x)
    assert x.squeeze(0).shape == (3, 1, 2)
    assert x.squeeze(2).shape == (1, 3, 2)
    assert x.squeeze(1).shape == (1, 3, 1, 2)  # not of size 1: unchanged
    assert x.squeeze((0, 2)).shape == (3, 2)
    u = x.unsqueeze(-1)
    assert u.shape == (1, 3, 1, 2, 1)
    assert_view_of(u, x)
    y = arange(3)
    assert y.unsqueeze(0).shape == (1, 3)
    assert y.unsqueeze(1).shape == (3, 1)
    assert y.unsqueeze(0).stride()[1] == 1


def test_transpose_permute_t_T_mT_are_views():
    x = arange(2, 3, 4)
    tr = x.transpose(0, 2)
    assert tr.shape == (4, 3, 2) and tr.stride() == (1, 4, 12)
    assert_view_of(tr, x)
    p = x.permute(2, 0, 1)
    assert p.shape == (4, 2, 3) and p.stride() == (1, 12, 4)
    np.testing.assert_array_equal(p.numpy(), x.numpy().transpose(2, 0, 1))
    assert_view_of(p, x)
    assert x.permute((1, 0, 2)).shape == (3, 2, 4)
    mt = x.mT
    assert mt.shape == (2, 4, 3)
    assert_view_of(mt, x)
    m = arange(2, 3)
    for v in (m.t(), m.T, m.mT):
        assert v.shape == (3, 2) and v.stride() == (1, 3)
        assert_view_of(v, m)
    assert nbgrad.transpose(m, 0, 1).shape == (3, 2)
    assert arange(5).t().shape == (5,)


def test_expand_and_expand_as_are_views():
    x = arange(3, 1)
    e = x.expand(2, 3, 4)
    assert e.shape == (2, 3, 4) and e.stride() == (0, 1, 0)
    assert_view_of(e, x)
    e2 = x.expand(-1, 5)
    assert e2.shape == (3, 5)
    ea = x.expand_as(nbgrad.zeros(3, 6))
    assert ea.shape == (3, 6)
    assert_view_of(ea, x)
    with pytest.raises(RuntimeError):
        x.expand(4, 4)


def test_narrow_select_are_views():
    x = arange(4, 5)
    n = x.narrow(1, 1, 3)
    np.testing.assert_array_equal(n.numpy(), np.arange(20.0).reshape(4, 5)[:, 1:4])
    assert n.storage_offset() == 1
    assert_view_of(n, x)
    s = x.select(0, 2)
    assert s.shape == (5,) and s.storage_offset() == 10
    assert_view_of(s, x)
    s1 = x.select(1, -1)
    assert s1.tolist() == [4 + 5 * i + 2.0 for i in range(4)]  # the two add_(1) above moved values


def test_unbind_split_chunk_return_views():
    x = arange(4, 6)
    rows = x.unbind(0)
    assert isinstance(rows, tuple) and len(rows) == 4
    for r in rows:
        assert r.shape == (6,)
    cols = nbgrad.unbind(x, 1)
    assert len(cols) == 6 and cols[2].stride() == (6,)
    parts = x.split(4, dim=1)
    assert [p.shape for p in parts] == [(4, 4), (4, 2)]
    parts2 = x.split([1, 3], dim=0)
    assert [p.shape for p in parts2] == [(1, 6), (3, 6)]
    chunks = x.chunk(4, dim=1)
    assert [c.shape for c in chunks] == [(4, 2), (4, 2), (4, 2)]  # PyTorch's chunk rule
    chunks2 = x.chunk(3)
    assert [c.shape for c in chunks2] == [(2, 6), (2, 6)]
    for v in (rows[1], cols[3], parts[1], parts2[1], chunks[2]):
        assert_view_of(v, x)


def test_diagonal_is_a_view():
    x = arange(3, 4)
    d = x.diagonal()
    assert d.tolist() == [0.0, 5.0, 10.0]
    assert d.stride() == (5,)
    assert_view_of(d, x)
    assert x.diagonal(1).tolist() == [2.0, 7.0, 12.0]
    assert x.diagonal(-1).tolist() == [5.0, 10.0]
    y = arange(2, 3, 3)
    d2 = y.diagonal(dim1=1, dim2=2)
    assert d2.shape == (2, 3)
    np.testing.assert_array_equal(d2.numpy(), np.diagonal(np.arange(18.0).reshape(2, 3, 3), axis1=1, axis2=2))


def test_as_strided_is_a_view():
    x = arange(10)
    a = x.as_strided((3, 3), (2, 1), 1)
    np.testing.assert_array_equal(a.numpy(), [[1, 2, 3], [3, 4, 5], [5, 6, 7]])
    assert a.storage_offset() == 1
    assert_view_of(a, x)


# --- basic indexing -----------------------------------------------------------

BASIC_INDICES = [
    0, -1, (1, 2), (slice(None), 1), slice(1, 3), slice(None, None, 2), (slice(1, None, 2), slice(None, None, 3)),
    None, (None, 0), (Ellipsis, 1), (0, Ellipsis), (Ellipsis, None), (slice(None), None, slice(1, 3)),
    (1, Ellipsis, None, slice(0, 5, 2)), slice(-3, -1), slice(2, 100), (Ellipsis,), (1, 2, 3),
]


@pytest.mark.parametrize("index", BASIC_INDICES, ids=repr)
def test_basic_indexing_gives_views_with_numpy_shapes(index):
    ref = np.arange(60.0, dtype=np.float32).reshape(3, 4, 5)
    x = nbgrad.arange(60.0).view(3, 4, 5)
    v = x[index]
    assert v.shape == ref[index].shape
    np.testing.assert_array_equal(v.numpy(), ref[index])
    assert_view_of(v, x)


def test_integer_index_gives_0dim_view():
    x = arange(3)
    s = x[1]
    assert s.shape == ()
    assert s.item() == 1.0
    s.fill_(7)
    assert x.tolist() == [0.0, 7.0, 2.0]


def test_slicing_an_empty_range_gives_empty_view():
    x = arange(3, 4)
    assert x[2:1].shape == (0, 4)
    assert x[:, 5:].shape == (3, 0)


def test_negative_step_slice_raises_valueerror():
    with pytest.raises(ValueError):
        arange(5)[::-1]


# --- copy and deepcopy --------------------------------------------------------------

def test_copy_copy_shares_storage():
    a = nbgrad.tensor([1.0, 2.0])
    c = copy.copy(a)
    assert c is not a
    assert c.data_ptr() == a.data_ptr()
    a.add_(1)
    assert c.tolist() == [2.0, 3.0]


def test_deepcopy_copies_storage():
    a = nbgrad.tensor([1.0, 2.0])
    d = copy.deepcopy(a)
    assert d is not a
    assert d.data_ptr() != a.data_ptr()
    assert d.dtype == a.dtype and d.shape == a.shape
    a.add_(1)
    assert d.tolist() == [1.0, 2.0]


def test_deepcopy_copies_grad_and_requires_grad():
    a = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    a.grad = nbgrad.tensor([3.0, 4.0])
    d = copy.deepcopy(a)
    assert d.requires_grad
    assert d.grad is not a.grad
    assert d.grad.data_ptr() != a.grad.data_ptr()
    assert d.grad.tolist() == [3.0, 4.0]
    assert d.is_leaf


def test_deepcopy_keeps_aliasing_between_tensors_copied_together():
    a = arange(2, 3)
    v = a[1]
    t = a.t()
    box = {"a": a, "parts": [v, t], "again": a}
    box2 = copy.deepcopy(box)
    a2, v2, t2 = box2["a"], box2["parts"][0], box2["parts"][1]
    assert box2["again"] is a2
    assert a2.data_ptr() != a.data_ptr()
    assert v2.data_ptr() == a2.data_ptr() + 3 * 4
    assert t2.stride() == (1, 3)
    a2.fill_(9)
    assert v2.tolist() == [9.0, 9.0, 9.0]
    assert t2.tolist() == [[9.0, 9.0]] * 3
    assert a.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_deepcopy_of_a_list_with_a_view_first():
    a = arange(4)
    v = a[2:]
    lst = copy.deepcopy([v, a])
    lst[1].zero_()
    assert lst[0].tolist() == [0.0, 0.0]
    assert v.tolist() == [2.0, 3.0]


def test_deepcopy_memo_keeps_every_object_it_answers_for():
    # The memo is keyed by id(): an object it names must live as long as the memo, or a
    # later object reusing the id gets the wrong copy.  Parameter deep-copies its data
    # through a temporary (self.detach()); with the temporary freed, an ordering of the
    # suite gave a Transformer's out_proj.bias the (24, 8) copy of in_proj_weight.
    memo = {}
    p = nbgrad.nn.Parameter(arange(24, 8))
    q = nbgrad.nn.Parameter(arange(8))
    cp = copy.deepcopy(p, memo)
    cq = copy.deepcopy(q, memo)
    nbgrad.Tensor.__deepcopy__(arange(3).detach(), memo)       # a temporary, freed at once
    alive = {id(o) for o in memo.get("nbgrad.keep", []) + memo.get(id(memo), [])}
    for key in memo:
        if isinstance(key, int) and key != id(memo):
            assert key in alive
    assert cp.shape == (24, 8) and cq.shape == (8,)
    assert cq.tolist() == q.tolist()


def test_deepcopy_of_modules_keeps_each_parameter_in_its_place():
    layer = nbgrad.nn.TransformerEncoderLayer(8, 2, 16)
    shapes = [(n, p.shape) for n, p in layer.named_parameters()]
    for _ in range(20):
        clones = [copy.deepcopy(layer) for _ in range(3)]
        for c in clones:
            assert [(n, p.shape) for n, p in c.named_parameters()] == shapes


# --- numpy interop ----------------------------------------------------------------

def test_numpy_shares_memory_both_ways():
    t = nbgrad.zeros(3)
    a = t.numpy()
    assert isinstance(a, np.ndarray)
    assert a.dtype == np.float32
    a[0] = 5
    assert t[0].item() == 5.0
    t.add_(1)
    np.testing.assert_array_equal(a, [6.0, 1.0, 1.0])
    assert a.__array_interface__["data"][0] == t.data_ptr()


def test_numpy_of_noncontiguous_view_shares_memory():
    x = arange(3, 4)
    v = x.t()[::2]
    a = v.numpy()
    assert a.shape == (2, 3)
    assert a.strides == (2 * 4, 4 * 4)
    np.testing.assert_array_equal(a, np.arange(12.0).reshape(3, 4).T[::2])
    a[1, 2] = -1
    assert x[2, 2].item() == -1
    x.zero_()
    assert (a == 0).all()


def test_numpy_of_expanded_view_has_zero_strides():
    x = arange(3, 1)
    a = x.expand(3, 4).numpy()
    assert a.strides == (4, 0)
    np.testing.assert_array_equal(a, np.repeat(np.arange(3.0)[:, None], 4, axis=1))


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6.0).reshape(2, 3)
    t = nbgrad.from_numpy(a)
    assert t.dtype == nbgrad.float64
    assert t.shape == (2, 3)
    assert t.data_ptr() == a.__array_interface__["data"][0]
    a[0, 1] = 100
    assert t[0, 1].item() == 100
    t.mul_(2)
    assert a[1, 2] == 10
    t2 = nbgrad.from_numpy(a)
    assert t2.data_ptr() == t.data_ptr()


def test_from_numpy_of_strided_array_keeps_strides():
    big = np.arange(40, dtype=np.int32).reshape(4, 10)
    a = big[::2, 1::3]
    t = nbgrad.from_numpy(a)
    assert t.dtype == nbgrad.int32
    assert t.shape == (2, 3)
    assert t.stride() == (20, 3)
    np.testing.assert_array_equal(t.numpy(), a)
    t[1, 1] = -7
    assert big[2, 4] == -7
    big[0, 7] = 55
    assert t[0, 2].item() == 55
    tt = nbgrad.from_numpy(big.T)
    assert tt.stride() == (1, 10)


def test_from_numpy_dtypes():
    for np_dt, dt in [(np.float32, nbgrad.float32), (np.float64, nbgrad.float64), (np.int32, nbgrad.int32),
                      (np.int64, nbgrad.int64), (np.bool_, nbgrad.bool)]:
        assert nbgrad.from_numpy(np.zeros(2, dtype=np_dt)).dtype == dt
        assert nbgrad.zeros(2, dtype=dt).numpy().dtype == np_dt


def test_tensor_of_ndarray_copies():
    a = np.arange(3.0)
    t = nbgrad.tensor(a)
    assert t.dtype == nbgrad.float64
    a[0] = 100
    assert t[0].item() == 0.0
    assert t.data_ptr() != a.__array_interface__["data"][0]


def test_clone_copies():
    x = arange(2, 3)
    c = x.clone()
    assert c is not x and c.data_ptr() != x.data_ptr()
    assert c.dtype == x.dtype and c.shape == x.shape
    assert_copy_of(c, x)
    ct = x.t().clone()
    np.testing.assert_array_equal(ct.numpy(), x.t().numpy())
    assert_copy_of(ct, x)


def test_numpy_of_tensor_requiring_grad_raises():
    t = nbgrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        t.numpy()
    a = t.detach().numpy()
    np.testing.assert_array_equal(a, [1.0, 1.0])
    assert a.__array_interface__["data"][0] == t.data_ptr()


def test_np_asarray_works():
    t = arange(2, 3)
    a = np.asarray(t)
    assert a.shape == (2, 3) and a.dtype == np.float32
    np.testing.assert_array_equal(a, np.arange(6.0).reshape(2, 3))
    d = np.asarray(t, dtype=np.float64)
    assert d.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(t.t()), np.arange(6.0).reshape(2, 3).T)


def test_item():
    assert nbgrad.tensor(2.5).item() == 2.5
    assert type(nbgrad.tensor(2.5).item()) is float
    assert type(nbgrad.tensor([3]).item()) is int
    assert nbgrad.tensor([[3]]).item() == 3
    assert type(nbgrad.tensor(True).item()) is bool
    with pytest.raises(RuntimeError):
        nbgrad.tensor([1.0, 2.0]).item()


def test_tolist():
    x = arange(2, 3)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert x.t().tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert nbgrad.tensor(4).tolist() == 4
    ints = nbgrad.tensor([1, 2]).tolist()
    assert all(type(v) is int for v in ints)
    assert nbgrad.tensor([True]).tolist() == [True]
    assert type(x.tolist()[0][0]) is float


def test_float_int_bool_of_one_element_tensor():
    assert float(nbgrad.tensor([1.5])) == 1.5
    assert int(nbgrad.tensor(2.7)) == 2
    assert bool(nbgrad.tensor(0.0)) is False
    assert bool(nbgrad.tensor([3])) is True
    with pytest.raises(RuntimeError):
        bool(nbgrad.tensor([1, 2]))
