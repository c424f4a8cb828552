"""Memory safety: every public path that builds a geometry from user numbers refuses
one reaching outside the storage (PyTorch 2.13's errors), before touching memory.

Expected messages were recorded from PyTorch 2.13."""
import os

import numpy as np
import pytest

import nbgrad

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"


def _arange(n):
    return nbgrad.arange(float(n))


# -- as_strided --------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda x, *a, **k: x.as_strided(*a, **k),
    lambda x, *a, **k: nbgrad.as_strided(x, *a, **k),
])
def test_as_strided_negative_stride_refused_before_reading(call):
    # used to segfault (a read 2**40 elements before the buffer)
    x = _arange(4)
    with pytest.raises(RuntimeError, match=r"as_strided: Negative strides are not supported at the moment, "
                                           r"got strides: \[-1099511627776\]"):
        call(x, (2,), (-2 ** 40,), 0)


def test_as_strided_negative_stride_write_refused_and_buffer_unchanged():
    base = _arange(1000)
    before = base.numpy().copy()
    with pytest.raises(RuntimeError, match=r"got strides: \[-600\]"):
        base[500:].as_strided((2,), (-600,), 0).fill_(-1.0)
    np.testing.assert_array_equal(base.numpy(), before)


def test_as_strided_strides_of_opposite_signs_do_not_cancel():
    with pytest.raises(RuntimeError, match=r"got strides: \[5, -4\]"):
        _arange(4).as_strided((2, 2), (5, -4), 0)


def test_as_strided_negative_stride_refused_even_when_empty():
    with pytest.raises(RuntimeError, match="Negative strides"):
        _arange(4).as_strided((0,), (-1,), 0)


@pytest.mark.parametrize("kw", [False, True])
def test_as_strided_negative_storage_offset(kw):
    x = _arange(4)
    with pytest.raises(RuntimeError, match="Tensor: invalid storage offset -1"):
        x.as_strided((2,), (1,), storage_offset=-1) if kw else x.as_strided((2,), (1,), -1)


def test_as_strided_negative_size():
    with pytest.raises(RuntimeError, match=r"Storage size calculation overflowed with sizes=\[-2\] and strides=\[1\]"):
        _arange(4).as_strided((-2,), (1,), 0)


def test_as_strided_check_order_is_pytorchs():
    with pytest.raises(RuntimeError, match="Negative strides"):
        _arange(4).as_strided((-2,), (-1,), -1)
    with pytest.raises(RuntimeError, match="invalid storage offset -1"):
        _arange(4).as_strided((-2,), (1,), -1)


@pytest.mark.parametrize("size,stride,offset", [
    ((2 ** 62, 2 ** 62), (1, 1), 0), ((2,), (2 ** 62,), 0), ((2, 2), (2 ** 61, 2 ** 61), 0),
    ((2,), (2 ** 61,), 0), ((2,), (1,), 2 ** 62), ((2,), (1,), 2 ** 63 - 1)])
def test_as_strided_overflow(size, stride, offset):
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        _arange(4).as_strided(size, stride, offset)


def test_as_strided_out_of_bounds_message():
    with pytest.raises(RuntimeError, match=r"setStorage: sizes \[4\], strides \[1\], storage offset 1, and "
                                           r"itemsize 4 requiring a storage size of 20 are out of bounds for "
                                           r"storage of size 16"):
        _arange(4)[1:].as_strided((4,), (1,))


def test_as_strided_in_bounds_still_works():
    x = _arange(4)
    assert x[1:].as_strided((3,), (1,)).tolist() == [1.0, 2.0, 3.0]
    assert x[1:].as_strided((2,), (1,), 0).tolist() == [0.0, 1.0]
    assert nbgrad.as_strided(x, size=(2,), stride=(1,), storage_offset=2).tolist() == [2.0, 3.0]
    assert x.as_strided((), (), 3).item() == 3.0
    assert x.as_strided((0,), (1,), 100).shape == (0,)
    assert x.as_strided((2, 0), (2 ** 62, 1), 0).shape == (2, 0)


@pytest.mark.parametrize("size,stride,offset,kind", [
    ((2.0,), (1,), 0, "size"), ((2,), (1.5,), 0, "stride"), ((True,), (1,), 0, "size")])
def test_as_strided_non_int_arguments(size, stride, offset, kind):
    with pytest.raises(TypeError, match=f"as_strided\\(\\): argument '{kind}'"):
        _arange(4).as_strided(size, stride, offset)


def test_as_strided_bool_offset_refused():
    with pytest.raises(TypeError, match="argument 'storage_offset'"):
        _arange(4).as_strided((2,), (1,), True)


# -- expand --------------------------------------------------------------------------------
def test_expand_negative_size_of_singleton_dim():
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        nbgrad.tensor([1.0]).expand(-2)


def test_expand_negative_leading_size():
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        _arange(3).expand(-2, 3)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(-1\) isn't allowed in a leading"):
        _arange(3).expand(-1, 3)


def test_expand_numel_overflow():
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        nbgrad.tensor(1.0).expand(2 ** 62, 2 ** 62)
    with pytest.raises(TypeError, match="Overflow when unpacking long long"):
        nbgrad.tensor([1.0]).expand(2 ** 64)


def test_expand_valid_sizes_still_work():
    assert nbgrad.tensor([1.0]).expand(0).shape == (0,)
    assert _arange(3).expand(2, -1).shape == (2, 3)


# -- gather / scatter kernels refuse offsets outside the buffer ----------------------------
@pytest.mark.skipif(AGAINST_TORCH, reason="nbgrad's backend")
def test_backend_take_put_refuse_out_of_range_offsets():
    from nbgrad.backends import get_backend
    be = get_backend("cpu")
    buf = np.arange(4.0)
    for bad in ([4], [-1], [2 ** 40]):
        with pytest.raises(IndexError):
            be.take(buf, np.array(bad, dtype=np.int64))
        with pytest.raises(IndexError):
            be.put(buf, np.array([0] + bad, dtype=np.int64), np.ones(2), False)
        with pytest.raises(IndexError):
            be.put(buf, np.array([0] + bad, dtype=np.int64), np.ones(2), True)
    np.testing.assert_array_equal(buf, np.arange(4.0))   # nothing written, not even offset 0


# -- view / reshape / narrow / select / split with bad numbers -----------------------------------
def test_view_bad_sizes():
    x = _arange(6)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        x.view(-1, -1)
    with pytest.raises(RuntimeError, match=r"invalid shape dimension -2 at index 0 of shape \[-2, 3\]"):
        x.view(-2, 3)
    with pytest.raises(RuntimeError, match=r"invalid shape dimension -3 at index 0 of shape \[-3\]"):
        x.reshape(-3)
    with pytest.raises(RuntimeError, match=r"shape '\[0, -1\]' is invalid for input of size 6"):
        x.view(0, -1)
    with pytest.raises(RuntimeError, match="cannot reshape tensor of 0 elements into shape \\[0, -1\\] because "
                                           "the unspecified dimension size -1 can be any value and is ambiguous"):
        _arange(0).view(0, -1)
    with pytest.raises(RuntimeError, match="is invalid for input of size 6"):
        x.view(2 ** 62, 2 ** 62)
    with pytest.raises(TypeError):
        x.view(2.0, 3)


def test_narrow_bad_numbers():
    x = _arange(6)
    with pytest.raises(RuntimeError, match=r"narrow\(\): length must be non-negative."):
        x.narrow(0, 2, -1)
    with pytest.raises(IndexError, match=r"start out of range \(expected to be in range of \[-6, 6\], but got 4611686018427387904\)"):
        x.narrow(0, 2 ** 62, 1)
    with pytest.raises(RuntimeError, match=r"start \(1\) \+ length \(9223372036854775807\) exceeds dimension size \(6\)."):
        x.narrow(0, 1, 2 ** 63 - 1)
    assert x.narrow(0, 6, 0).shape == (0,)


def test_select_and_integer_index_messages():
    x = _arange(6)
    with pytest.raises(IndexError, match=r"select\(\): index 4611686018427387904 out of range for tensor of size \[6\] at dimension 0"):
        x.select(0, 2 ** 62)
    with pytest.raises(IndexError, match=r"select\(\): index -4611686018427387904 out of range"):
        x.select(0, -2 ** 62)
    with pytest.raises(IndexError, match="index 4611686018427387904 is out of bounds for dimension 0 with size 6"):
        x[2 ** 62]
    assert x[2 ** 62:2 ** 63].shape == (0,)
    assert x[-2 ** 70:2 ** 70].tolist() == x.tolist()


def test_diagonal_huge_offsets_are_empty():
    m = _arange(6).reshape(2, 3)
    assert m.diagonal(2 ** 62).shape == (0,)
    assert m.diagonal(-2 ** 62).shape == (0,)
    assert m.diagonal(2).tolist() == [2.0]


def test_split_negative_sizes():
    x = _arange(6)
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative, but got split_size=-1"):
        x.split(-1)
    with pytest.raises(RuntimeError, match=r"split_with_sizes expects split_sizes have only non-negative entries, "
                                           r"but got split_sizes=\[-1, 7\]"):
        x.split([-1, 7])
    with pytest.raises(RuntimeError, match=r"split_sizes=\[3, -1, 4\]"):
        x.split([3, -1, 4])
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: -1"):
        x.chunk(-1)
    assert [p.tolist() for p in x.split(2 ** 62)] == [x.tolist()]


@pytest.mark.parametrize("n", [0, -1])
def test_tensor_split_sections_must_be_positive(n):
    with pytest.raises(RuntimeError, match=f"number of sections must be larger than 0, got {n}"):
        _arange(6).tensor_split(n)


def test_tensor_split_indices_are_slice_bounds():
    x = _arange(6)
    assert [p.tolist() for p in x.tensor_split([4, 2])] == [[0, 1, 2, 3], [], [2, 3, 4, 5]]
    assert [p.tolist() for p in x.tensor_split([-1, 2])] == [[0, 1, 2, 3, 4], [], [2, 3, 4, 5]]
    assert [p.shape[0] for p in x.tensor_split([2 ** 62])] == [6, 0]
    assert [p.tolist() for p in x.tensor_split(4)] == [[0, 1], [2, 3], [4], [5]]
    xg = _arange(6).requires_grad_()
    parts = xg.tensor_split([4, 2])
    assert [type(p.grad_fn).__name__ for p in parts] == ["SliceBackward0"] * 3
    sum(p.sum() * (i + 1) for i, p in enumerate(parts)).backward()
    assert xg.grad.tolist() == [1, 1, 4, 4, 3, 3]


# -- new tensors with bad sizes -------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: nbgrad.empty(-1), lambda: nbgrad.ones(-1), lambda: nbgrad.full((-1,), 2.0), lambda: nbgrad.rand(-1),
    lambda: nbgrad.randint(0, 3, (-1,)), lambda: _arange(6).new_empty(-1), lambda: _arange(6).new_full((-1,), 2.0),
    lambda: nbgrad.randperm(-1)])
def test_negative_dimension(make):
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: \[-1\]"):
        make()


@pytest.mark.parametrize("make,sizes", [
    (lambda: nbgrad.full((2 ** 62, 2 ** 62), 2.0), "4611686018427387904, 4611686018427387904"),
    (lambda: nbgrad.empty(2 ** 62, 2 ** 62), "4611686018427387904, 4611686018427387904"),
    (lambda: nbgrad.zeros(2 ** 62, 4), "4611686018427387904, 4"),
    (lambda: nbgrad.empty(2 ** 40, 2 ** 30), "1099511627776, 1073741824"),
    (lambda: nbgrad.randn(2 ** 62, 4), "4611686018427387904, 4"),
    (lambda: nbgrad.zeros(2 ** 62, 2 ** 62, 0), "4611686018427387904, 4611686018427387904, 0"),
    (lambda: nbgrad.arange(0, 2 ** 62), "4611686018427387904")])
def test_element_count_overflow_is_runtime_error(make, sizes):
    with pytest.raises(RuntimeError, match=f"Storage size calculation overflowed with sizes=\\[{sizes}\\]"):
        make()


def test_stride_overflow_and_unpackable_sizes():
    with pytest.raises(RuntimeError, match="Stride calculation overflowed"):
        nbgrad.zeros(0, 2 ** 62, 2 ** 62)
    with pytest.raises(TypeError, match="Overflow when unpacking long long"):
        nbgrad.empty(2 ** 63)
    assert nbgrad.zeros(0, 2 ** 62).shape == (0, 2 ** 62)


def test_eye_negative():
    with pytest.raises(RuntimeError, match="n must be greater or equal to 0, got -1"):
        nbgrad.eye(-1)
    with pytest.raises(RuntimeError, match="m must be greater or equal to 0, got -1"):
        nbgrad.eye(2, -1)


def test_arange_message():
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
        nbgrad.arange(-1)


# -- integer indices out of range: an error, and nothing read or written -------------------------
@pytest.mark.parametrize("bad", [4, -1, -5, 2 ** 40])
def test_index_select_refuses_out_of_range_and_negative(bad):
    with pytest.raises(IndexError, match="index out of range in self"):
        _arange(4).index_select(0, nbgrad.tensor([bad]))


@pytest.mark.parametrize("bad", [4, -1, -5])
def test_index_add_refuses_and_writes_nothing(bad):
    x = nbgrad.zeros(4)
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_add_(0, nbgrad.tensor([0, bad]), nbgrad.ones(2))
    if not AGAINST_TORCH:   # PyTorch writes the in-range elements first; nbgrad writes nothing
        assert x.tolist() == [0.0] * 4 and x._version == 0


@pytest.mark.parametrize("bad", [4, -5])
def test_take_message(bad):
    with pytest.raises(IndexError, match=f"out of range: tried to access index {bad} on a tensor of 4 elements."):
        _arange(4).take(nbgrad.tensor([bad]))
    assert _arange(4).take(nbgrad.tensor([-1])).tolist() == [3.0]


@pytest.mark.parametrize("op", [
    lambda x: x.scatter_(0, nbgrad.tensor([0, 4]), nbgrad.ones(2)),
    lambda x: x.scatter_(0, nbgrad.tensor([0, -1]), 1.0),
    lambda x: x.scatter_add_(0, nbgrad.tensor([0, 7]), nbgrad.ones(2)),
    lambda x: x.index_put_((nbgrad.tensor([0, 4]),), nbgrad.ones(2)),
    lambda x: x.index_put_((nbgrad.tensor([0, 9]),), nbgrad.ones(2), accumulate=True),
    lambda x: x.__setitem__(nbgrad.tensor([0, -5]), 1.0),
])
def test_scatter_like_ops_refuse_out_of_range_and_write_nothing(op):
    x = nbgrad.zeros(4)
    with pytest.raises((IndexError, RuntimeError), match="out of bounds for dimension 0 with size 4"):
        op(x)
    if not AGAINST_TORCH:   # PyTorch writes the in-range elements first; nbgrad writes nothing
        assert x.tolist() == [0.0] * 4


def test_gather_refuses_out_of_range():
    for bad in (4, -1, 2 ** 40):
        with pytest.raises(RuntimeError, match=f"index {bad} is out of bounds for dimension 0 with size 4"):
            _arange(4).gather(0, nbgrad.tensor([bad]))


@pytest.mark.parametrize("make", [
    lambda idx: nbgrad.nn.functional.embedding(idx, nbgrad.ones(3, 2)),
    lambda idx: nbgrad.nn.Embedding(3, 2)(idx)])
@pytest.mark.parametrize("bad", [-1, 3, 2 ** 40])
def test_embedding_refuses_out_of_range_and_negative(make, bad):
    with pytest.raises(IndexError, match="index out of range in self"):
        make(nbgrad.tensor([0, bad]))


@pytest.mark.parametrize("idx,n,msg", [
    ([3], 3, "Class values must be smaller than num_classes."),
    ([2], 0, "Class values must be smaller than num_classes."),
    ([-1], 3, "Class values must be non-negative."),
    ([-1], -1, "Class values must be non-negative.")])
def test_one_hot_refuses_classes_outside_range(idx, n, msg):
    with pytest.raises(RuntimeError) as info:
        nbgrad.nn.functional.one_hot(nbgrad.tensor(idx), n)
    assert str(info.value) == msg


def test_one_hot_dtype_and_empty():
    F = nbgrad.nn.functional
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor of type LongTensor."):
        F.one_hot(nbgrad.tensor([1.0]), 3)
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty tensor."):
        F.one_hot(nbgrad.tensor([], dtype=nbgrad.int64))
    assert F.one_hot(nbgrad.tensor([], dtype=nbgrad.int64), 3).shape == (0, 3)
    assert F.one_hot(nbgrad.tensor([2]), -1).tolist() == [[0, 0, 1]]
    assert F.one_hot(nbgrad.tensor([1, 0])).tolist() == [[0, 1], [1, 0]]


def test_repeat_negative():
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -3: \[-3\]"):
        nbgrad.ones(3).repeat(-1)
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -3: \[2, -3\]"):
        nbgrad.ones(3).repeat(2, -1)
    assert nbgrad.ones(3).repeat(0).shape == (0,)


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch 2.13 returns an empty tensor for x[::2**70]")
def test_slice_with_a_step_past_int64_does_not_overflow_strides():
    v = _arange(6)[::2 ** 70]
    assert v.tolist() == [0.0]            # Python's slice semantics (PyTorch 2.13 returns an empty tensor)
    assert _arange(3)[::5].stride() == (5,)


def test_from_numpy_odd_arrays():
    with pytest.raises(ValueError, match="negative strides are not currently supported"):
        nbgrad.from_numpy(np.zeros((4, 4))[::-1])
    with pytest.raises(ValueError, match="strides not a multiple of the element byte size"):
        nbgrad.from_numpy(np.lib.stride_tricks.as_strided(np.zeros(4), (2,), (12,)))
    with pytest.raises(TypeError, match="can't convert np.ndarray of type"):
        nbgrad.from_numpy(np.zeros(4, dtype=object))
    x = nbgrad.from_numpy(np.zeros((4, 4))[::2, 1::2])
    assert (x.stride(), x.storage_offset()) == ((8, 2), 0)
    # the storage a numpy view brings is only as long as the view spans
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 88"):
        x.as_strided((16,), (1,), 0)
    assert x.as_strided((8,), (1,), 0).shape == (8,)


def test_zeros_negative_size_has_its_own_message():
    with pytest.raises(RuntimeError, match="zeros: Dimension size must be non-negative."):
        nbgrad.zeros(2, -3)
    with pytest.raises(RuntimeError, match="zeros: Dimension size must be non-negative."):
        nbgrad.zeros((-1,), dtype=nbgrad.int8)
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: \[-1\]"):
        nbgrad.ones(2).new_zeros(-1)


@pytest.mark.parametrize("index,msg", [
    ((1, 5), "index 5 is out of bounds for dimension 1 with size 3"),
    ((slice(None), 5), "index 5 is out of bounds for dimension 1 with size 3")])
def test_integer_index_message_names_the_position(index, msg):
    with pytest.raises(IndexError) as info:
        _arange(6).reshape(2, 3)[index]
    assert str(info.value) == msg


@pytest.mark.parametrize("index,msg", [
    ((1, slice(None), 7), "index 7 is out of bounds for dimension 2 with size 4"),
    ((None, 1, 5), "index 5 is out of bounds for dimension 2 with size 3"),
    ((Ellipsis, 9), "index 9 is out of bounds for dimension 1 with size 4")])
def test_integer_index_message_3d(index, msg):
    with pytest.raises(IndexError) as info:
        _arange(24).reshape(2, 3, 4)[index]
    assert str(info.value) == msg
    x = nbgrad.zeros(2, 3, 4)
    with pytest.raises(IndexError) as info:
        x[index] = 1.0
    assert str(info.value) == msg
    assert x.sum().item() == 0.0


@pytest.mark.parametrize("op", [
    lambda x: x[2 ** 70], lambda x: x[-2 ** 70], lambda x: x.select(0, 2 ** 70),
    lambda x: x.narrow(0, 2 ** 70, 1), lambda x: x.reshape(2, 3).diagonal(2 ** 70),
    lambda x: x.reshape(2, 3)[1, 2 ** 64]])
def test_python_ints_past_int64_in_geometry(op):
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        op(_arange(6))


def test_zero_slice_step():
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        _arange(6)[::0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        _arange(6)[::-1]


@pytest.mark.skipif(AGAINST_TORCH, reason="nbgrad's backend")
def test_cuda_take_put_skip_out_of_range_offsets():
    try:
        from nbgrad.backends import get_backend
        be = get_backend("cuda")
        buf = be.from_host(np.arange(4.0))
    except Exception as exc:  # no GPU and no simulator
        pytest.skip(f"no CUDA backend: {exc}")
    got = be.to_host((be.take(buf, np.array([1, 7, -3], dtype=np.int64)), 0, (3,), (1,)))
    assert got.tolist() == [1.0, 0.0, 0.0]
    for accumulate in (False, True):
        be.put(buf, np.array([9, -1], dtype=np.int64), be.from_host(np.array([5.0, 6.0])), accumulate)
    assert be.to_host((buf, 0, (4,), (1,))).tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("sizes,exc,msg", [
    ((-1, -1), RuntimeError, "unflatten got an unexpected error:\nonly one dimension can be inferred"),
    ((-2, -3), RuntimeError, "unflatten got an unexpected error:\ninvalid shape dimension -2 at index 0 of shape [-2, -3]"),
    ((0, -1), RuntimeError, "unflatten: Provided sizes [0, -1] don't multiply up to the size of dim 0 (6) in the input tensor"),
    ((4, -1), RuntimeError, "unflatten: Provided sizes [4, -1] don't multiply up to the size of dim 0 (6) in the input tensor"),
    ((), RuntimeError, "unflatten: sizes must be non-empty"),
    ((3, 2.0), TypeError, "unflatten(): argument 'sizes' failed to unpack the object at pos 2 with error "
                          "\"type must be tuple of ints,but got float\"")])
def test_unflatten_bad_sizes(sizes, exc, msg):
    with pytest.raises(exc) as info:
        nbgrad.ones(6).unflatten(0, sizes)
    assert str(info.value).split("\nException raised")[0] == msg


def test_unflatten_good_sizes():
    assert nbgrad.ones(6).unflatten(0, (2, -1)).shape == (2, 3)
    assert nbgrad.ones(2, 6).unflatten(1, (3, -1)).shape == (2, 3, 2)
    assert nbgrad.ones(0).unflatten(0, (0, 5)).shape == (0, 5)
