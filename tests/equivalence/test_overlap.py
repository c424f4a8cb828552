"""Memory overlap in in-place writes: PyTorch 2.13's MemOverlap rules (recorded from torch).

FULL overlap (same memory, same geometry) is allowed for elementwise ops and refused by
indexing ops; PARTIAL overlap is refused; non-dense operands (TOO_HARD) are allowed.  A
refused write writes nothing."""
import pytest

import nbgrad as T

PARTIAL = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
           "single memory location. Please clone() the tensor before performing the operation.")
INTERNAL = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation.")


def _refused(fn, x, msg=PARTIAL):
    before = x.tolist()
    version = x._version
    with pytest.raises(RuntimeError) as e:
        fn(x)
    assert str(e.value) == msg
    assert x.tolist() == before and x._version == version


def _setitem_shift(x):
    x[1:] = x[:-1]


@pytest.mark.parametrize("fn", [
    _setitem_shift,
    lambda x: x[1:].add_(x[:-1]),
    lambda x: x[1:].copy_(x[:-1]),
    lambda x: x[:-1].copy_(x[1:]),
    lambda x: x[1:].clamp_(min=x[:-1]),
    lambda x: x[1:].pow_(x[:-1]),
    lambda x: x[1:].atan2_(x[:-1]),
    lambda x: x.add_(x.view(1, 4)),                 # overlap is checked before shapes
    lambda x: x[1:].add_(x.detach()[:-1]),
    lambda x: x[1:].add_(x.data[:-1]),
    lambda x: x[1:].copy_(x[:-1].view(T.int32)),    # another dtype over the same bytes
], ids=["setitem", "add_", "copy_", "copy_back", "clamp_kw", "pow_", "atan2_", "shape", "detach", "data",
        "view_dtype"])
def test_partial_overlap_refused(fn):
    _refused(fn, T.arange(4.0))


def test_partial_overlap_refused_when_recording():
    x = T.arange(4.0, requires_grad=True).clone()
    _refused(lambda x: x[1:].copy_(x[:-1]), x)
    _refused(lambda x: x[1:].add_(x[:-1]), x)
    assert type(x.grad_fn).__name__ == "CloneBackward0"


def test_transposed_self_is_partial():
    a = T.arange(4.0).reshape(2, 2)
    _refused(lambda a: a.t().add_(a), a)
    _refused(lambda a: a.add_(a.t()), a)
    _refused(lambda a: a.t().copy_(a), a)


@pytest.mark.parametrize("fn, expected", [
    (lambda x: x.add_(x), [0.0, 2.0, 4.0, 6.0]),
    (lambda x: x.mul_(x), [0.0, 1.0, 4.0, 9.0]),
    (lambda x: x.copy_(x), [0.0, 1.0, 2.0, 3.0]),
    (lambda x: x.add_(x.view(4)), [0.0, 2.0, 4.0, 6.0]),
    (lambda x: x.view(2, 2).add_(x.view(2, 2)), [0.0, 2.0, 4.0, 6.0]),
    (lambda x: x[1:].add_(x[0].expand(3)), [0.0, 1.0, 2.0, 3.0]),   # expanded source: TOO_HARD
    (lambda x: x[1:].copy_(x[0]), [0.0, 0.0, 0.0, 0.0]),
    (lambda x: x[2:].add_(x[:2]), [0.0, 1.0, 2.0, 4.0]),
    (lambda x: x[::2].add_(x[1::2]), [1.0, 1.0, 5.0, 3.0]),         # strided: TOO_HARD
    (lambda x: x[1:1].add_(x[0:0]), [0.0, 1.0, 2.0, 3.0]),
    (lambda x: x[1:].mul_(x[:-1].double()), [0.0, 0.0, 2.0, 6.0]),  # a copy
    (lambda x: x.masked_fill_(x > 1, 0), [0.0, 1.0, 0.0, 0.0]),
    (lambda x: x.fill_(x[1]), [1.0, 1.0, 1.0, 1.0]),
    (lambda x: x[1:].fill_(x[1]), [0.0, 1.0, 1.0, 1.0]),
    (lambda x: x[0].expand(3).fill_(1), [1.0, 1.0, 2.0, 3.0]),
    (lambda x: x[0].expand(3).zero_(), [0.0, 1.0, 2.0, 3.0]),
    (lambda x: x.expand(2, 4).zero_(), [0.0, 0.0, 0.0, 0.0]),
])
def test_allowed_writes(fn, expected):
    x = T.arange(4.0)
    fn(x)
    assert x.tolist() == expected and x._version == 1


def test_full_overlap_allowed_with_grad():
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.add_(y)
    assert type(y.grad_fn).__name__ == "AddBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_full_overlap_mul_saves_the_operand_it_overwrites():
    # y.mul_(y) saves `other` (y itself, version 0) and then writes y: backward must refuse
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.mul_(y)
    assert type(y.grad_fn).__name__ == "MulBackward0"
    with pytest.raises(RuntimeError, match=r"\[2\]\], which is output 0 of Mul, is at version 1; expected version 0"):
        y.sum().backward()


def test_setitem_with_itself():
    x = T.arange(4.0)
    x[:] = x
    x[1:3] = x[1:3]
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0] and x._version == 2


def test_setitem_value_strides_are_recomputed_before_the_overlap_check():
    # PyTorch's setitem views the value (slicePrefix1sSize) before expanding it, which gives
    # size-1 dims their contiguous strides: v1 (strides (3, 6, 1)) then has v0's geometry, a
    # full overlap, allowed; copy_ of v1 itself is a partial one (differential seed 12129002663)
    v0 = T.tensor([[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]], dtype=T.float64)
    v1 = v0[0, 0:, -1:1:2]
    assert v1.stride() == (3, 6, 1)
    with T.no_grad():
        v0[...] = v1
    assert v0.tolist() == [[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]] and v0._version == 1
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        v0.copy_(v1)
    v = T.arange(6.0).reshape(1, 2, 3)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        v[...] = v.as_strided((2, 3), (1, 2))
    assert v.tolist() == [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]] and v._version == 0


def test_disjoint_rows_and_diagonal_allowed():
    a = T.arange(6.0).reshape(2, 3)
    a[0].add_(a[1])
    assert a.tolist() == [[3.0, 5.0, 7.0], [3.0, 4.0, 5.0]]
    b = T.arange(4.0).reshape(2, 2)
    b.diagonal().sub_(b[0])                          # diagonal is not dense: TOO_HARD
    assert b.tolist() == [[0.0, 1.0], [2.0, 2.0]]


def _setitem_adv_self(x):
    x[T.tensor([0, 1, 2, 3])] = x


def _setitem_adv_partial(x):
    x[T.tensor([1, 2, 3])] = x[:3]


@pytest.mark.parametrize("fn", [
    lambda x: x.index_put_((T.tensor([1, 2, 3]),), x[:3]),
    lambda x: x.index_put_((T.tensor([0, 1, 2, 3]),), x),
    _setitem_adv_self,
    _setitem_adv_partial,
    lambda x: x.scatter_(0, T.tensor([3, 2, 1, 0]), x),
    lambda x: x.scatter_(0, T.tensor([1, 2]), x[1:]),
    lambda x: x.scatter_add_(0, T.tensor([3, 2, 1, 0]), x),
    lambda x: x.index_add_(0, T.tensor([3, 2, 1, 0]), x),
    lambda x: x.index_add_(0, T.tensor([0, 1]), x[1:3]),
])
def test_indexing_ops_refuse_any_overlap(fn):
    _refused(fn, T.arange(4.0))


def test_indexing_ops_refuse_index_from_self():
    _refused(lambda x: x.index_put_((x[:2],), T.tensor(9)), T.arange(4))
    _refused(lambda x: x.scatter_(0, x, x), T.tensor([1, 0, 3, 2]))


def _expanded_setitem(x):
    y = x[0].expand(3)
    y[:] = 1


def _expanded_setitem_ellipsis(x):
    y = x[0].expand(3)
    y[...] = 1


def _expanded_setitem_tensor(x):
    y = x[0].expand(3)
    y[:] = T.tensor(1.0)


@pytest.mark.parametrize("fn", [
    lambda x: x[0].expand(3).add_(1),
    lambda x: x[0].expand(3).copy_(T.ones(3)),
    lambda x: x[0].expand(3).exp_(),
    lambda x: x.as_strided((3,), (0,)).add_(1),
    lambda x: x[0].expand(3).fill_(T.tensor(1.0)),
    lambda x: x[0].expand(3).uniform_(),
    _expanded_setitem,
    _expanded_setitem_ellipsis,
    _expanded_setitem_tensor,
])
def test_internal_overlap_of_written_tensor_refused(fn):
    _refused(fn, T.arange(4.0), INTERNAL)


# masked_fill_ and index_put_ on an expanded tensor: deprecated in PyTorch (a UserWarning), and
# written element by element, so only the selected elements are written (aliases included).
INDEX_PUT_WARNING = r"^Use of index_put_ on expanded tensors is deprecated\. Please clone\(\) the tensor"
MASKED_FILL_WARNING = r"^Use of masked_fill_ on expanded tensors is deprecated\. Please clone\(\) the tensor"


def _mask_setitem(y):
    y[T.tensor([True, False, False])] = 7.0


def _index_setitem(y):
    y[T.tensor([1])] = 7.0


def _index_setitem_tensor(y):
    y[T.tensor([1])] = T.tensor([7.0])


@pytest.mark.parametrize("fn, expected, warning", [
    (_mask_setitem, [7.0, 1.0, 2.0, 3.0], INDEX_PUT_WARNING),
    (_index_setitem, [7.0, 1.0, 2.0, 3.0], INDEX_PUT_WARNING),
    (_index_setitem_tensor, [7.0, 1.0, 2.0, 3.0], INDEX_PUT_WARNING),
    (lambda y: y.index_put_((T.tensor([2]),), T.tensor(7.0)), [7.0, 1.0, 2.0, 3.0], INDEX_PUT_WARNING),
    (lambda y: y.index_put_((T.tensor([2, 1]),), T.tensor(7.0), accumulate=True), [14.0, 1.0, 2.0, 3.0],
     INDEX_PUT_WARNING),
    (lambda y: y.masked_fill_(T.tensor([False, False, False]), 7.0), [0.0, 1.0, 2.0, 3.0], MASKED_FILL_WARNING),
    (lambda y: y.masked_fill_(T.tensor([False, True, False]), T.tensor(7.0)), [7.0, 1.0, 2.0, 3.0],
     MASKED_FILL_WARNING),
])
def test_expanded_masked_fill_and_index_put(fn, expected, warning):
    x = T.arange(4.0)
    with pytest.warns(UserWarning, match=warning):
        fn(x[0].expand(3))
    assert x.tolist() == expected and x._version == 1


def test_expanded_2d_masked_fill_and_index_put():
    x = T.arange(4.0).reshape(1, 4)
    with pytest.warns(UserWarning, match=MASKED_FILL_WARNING):
        x.expand(2, 4).masked_fill_(T.tensor([[True, False, False, False], [False, False, False, True]]), 9.0)
    assert x.tolist() == [[9.0, 1.0, 2.0, 9.0]]
    x = T.arange(4.0).reshape(1, 4)
    y = x.expand(3, 4)
    with pytest.warns(UserWarning, match=INDEX_PUT_WARNING):
        y[T.tensor([0, 2]), T.tensor([1, 3])] = T.tensor([10.0, 30.0])
    assert x.tolist() == [[0.0, 10.0, 2.0, 30.0]]


def test_masked_fill_still_checks_and_records():
    x = T.arange(4.0, requires_grad=True)
    y = x * 1
    y.masked_fill_(x > 1, -1.0)
    assert type(y.grad_fn).__name__ == "MaskedFillBackward0" and y.tolist() == [0.0, 1.0, -1.0, -1.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 0.0, 0.0]
    z = T.zeros(2, 3)
    z.masked_fill_(T.tensor([True, False, True]), 5.0)
    assert z.tolist() == [[5.0, 0.0, 5.0], [5.0, 0.0, 5.0]]
    e = T.arange(4.0)
    with pytest.raises(RuntimeError, match="^masked_fill_ only supports boolean masks"):
        e[0].expand(3).masked_fill_(T.tensor([1, 0, 0]), 1.0)
    assert e.tolist() == [0.0, 1.0, 2.0, 3.0] and e._version == 0
