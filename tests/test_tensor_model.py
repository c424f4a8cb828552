"""The tensor model: shape, strides, offset, storage, contiguity, versions and repr, as PyTorch."""
import os
import re

import numpy as np
import pytest

import nbgrad

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
nbgrad_only = pytest.mark.skipif(AGAINST_TORCH, reason="checks an nbgrad internal that PyTorch lacks")

# dtype and Size names print as "torch.X" under PyTorch and "nbgrad.X" here.
NS = r"(?:torch|nbgrad)"


# --- shape, Size, dim, numel ---------------------------------------------

def test_shape_is_a_tuple_subclass_equal_to_tuple():
    x = nbgrad.zeros(2, 3, 4)
    assert isinstance(x.shape, tuple)
    assert type(x.shape) is not tuple
    assert x.shape == (2, 3, 4)
    assert x.size() == (2, 3, 4)
    assert type(x.size()) is type(x.shape)
    assert x.size(1) == 3
    assert x.size(-1) == 4
    assert x.shape[0] == 2


def test_size_class_is_public_and_constructible():
    s = nbgrad.Size([2, 3])
    assert s == (2, 3)
    assert isinstance(s, tuple)
    assert s.numel() == 6
    assert isinstance(s[0:1], nbgrad.Size)


def test_size_repr():
    x = nbgrad.zeros(2, 3)
    assert re.fullmatch(NS + r"\.Size\(\[2, 3\]\)", repr(x.shape))
    assert re.fullmatch(NS + r"\.Size\(\[\]\)", repr(nbgrad.tensor(1.0).shape))


def test_shape_from_tuple_or_varargs():
    assert nbgrad.zeros((2, 3)).shape == (2, 3)
    assert nbgrad.zeros([2, 3]).shape == (2, 3)
    assert nbgrad.zeros(2, 3).shape == (2, 3)


def test_dim_ndim_numel_len():
    x = nbgrad.zeros(2, 3, 4)
    assert x.dim() == 3
    assert x.ndim == 3
    assert x.numel() == 24
    assert len(x) == 2
    s = nbgrad.tensor(5.0)
    assert s.dim() == 0 and s.ndim == 0
    assert s.shape == ()
    assert s.numel() == 1
    e = nbgrad.zeros(0, 3)
    assert e.numel() == 0
    assert len(e) == 0


def test_len_of_0dim_raises_typeerror():
    with pytest.raises(TypeError):
        len(nbgrad.tensor(1.0))


def test_size_dim_out_of_range_raises_indexerror():
    with pytest.raises(IndexError):
        nbgrad.zeros(2, 3).size(2)


# --- strides, offset, contiguity -----------------------------------------

def test_contiguous_strides_in_elements():
    x = nbgrad.zeros(2, 3, 4)
    assert x.stride() == (12, 4, 1)
    assert x.stride(0) == 12
    assert x.stride(-1) == 1
    assert x.storage_offset() == 0
    assert x.is_contiguous()


def test_strides_same_in_elements_for_every_dtype():
    for dt in (nbgrad.float32, nbgrad.float64, nbgrad.int32, nbgrad.int64, nbgrad.bool):
        assert nbgrad.zeros(3, 5, dtype=dt).stride() == (5, 1)


def test_transposed_strides_and_not_contiguous():
    x = nbgrad.zeros(2, 3)
    t = x.t()
    assert t.shape == (3, 2)
    assert t.stride() == (1, 3)
    assert not t.is_contiguous()


def test_slice_strides_and_offset():
    x = nbgrad.arange(24.0).view(4, 6)
    y = x[1:, 2::2]
    assert y.shape == (3, 2)
    assert y.stride() == (6, 2)
    assert y.storage_offset() == 8
    assert not y.is_contiguous()
    z = x[2]
    assert z.storage_offset() == 12
    assert z.stride() == (1,)
    assert z.is_contiguous()


def test_data_ptr_moves_with_offset_by_itemsize():
    x = nbgrad.zeros(10, dtype=nbgrad.float32)
    assert x[3:].data_ptr() == x.data_ptr() + 3 * 4
    d = nbgrad.zeros(10, dtype=nbgrad.float64)
    assert d[3:].data_ptr() == d.data_ptr() + 3 * 8
    assert x.element_size() == 4 and d.element_size() == 8


def test_expand_has_zero_strides():
    x = nbgrad.zeros(3, 1)
    e = x.expand(3, 4)
    assert e.stride() == (1, 0)
    assert not e.is_contiguous()


def test_size_one_dims_do_not_break_contiguity():
    # PyTorch ignores strides of size-1 dims when judging contiguity.
    x = nbgrad.zeros(3, 4)
    assert x[:, :1].is_contiguous() is False  # shape (3,1), stride (4,1)
    y = x[:1]
    assert y.is_contiguous()
    u = nbgrad.zeros(4).unsqueeze(0)
    assert u.is_contiguous()
    assert nbgrad.zeros(3, 1).t().is_contiguous()


def test_empty_tensor_is_contiguous():
    assert nbgrad.zeros(0, 3).t().is_contiguous()


def test_contiguous_returns_self_when_already_contiguous():
    x = nbgrad.ones(2, 3)
    assert x.contiguous() is x


def test_contiguous_copies_a_noncontiguous_tensor():
    x = nbgrad.arange(6.0).view(2, 3)
    t = x.t()
    c = t.contiguous()
    assert c is not t
    assert c.is_contiguous()
    assert c.stride() == (2, 1)
    assert c.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(c.numpy(), np.arange(6.0).reshape(2, 3).T)
    x.fill_(-1.0)
    np.testing.assert_array_equal(c.numpy(), np.arange(6.0).reshape(2, 3).T)


# --- storage --------------------------------------------------------------

def _find_storage(t):
    """The nbgrad Storage object a tensor holds, whatever attribute holds it."""
    from nbgrad._tensor import Storage  # noqa: PLC0415  (nbgrad internal)
    found = [v for v in vars(t).values() if isinstance(v, Storage)]
    if not found:
        slots = [getattr(t, s) for c in type(t).__mro__ for s in getattr(c, "__slots__", ())
                 if hasattr(t, s)]
        found = [v for v in slots if isinstance(v, Storage)]
    assert len(found) == 1, "a Tensor holds exactly one Storage"
    return found[0]


@nbgrad_only
def test_views_share_one_storage_object():
    x = nbgrad.zeros(4, 3)
    views = [x.view(12), x.t(), x[1:], x[:, 1], x.unsqueeze(0), x.expand(2, 4, 3)]
    for v in views:
        assert _find_storage(v) is _find_storage(x)
    assert _find_storage(x.clone()) is not _find_storage(x)


def test_untyped_storage_shared_by_views():
    x = nbgrad.zeros(4, 3)
    assert x.t().untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert x[2:].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert x.clone().untyped_storage().data_ptr() != x.untyped_storage().data_ptr()


# --- version counter and _base -------------------------------------------

def test_version_starts_at_zero_and_bumps_on_inplace():
    x = nbgrad.zeros(3)
    assert x._version == 0
    x.add_(1)
    assert x._version == 1
    x += 1
    assert x._version == 2
    x[0] = 5
    assert x._version == 3


def test_version_is_shared_by_views():
    x = nbgrad.zeros(3, 2)
    v = x[1]
    t = x.t()
    v.mul_(2)
    assert x._version == 1 and v._version == 1 and t._version == 1
    x.zero_()
    assert v._version == 2 and t._version == 2


def test_out_of_place_op_does_not_bump_version():
    x = nbgrad.ones(3)
    _ = x + 1
    _ = x.sum()
    _ = x.view(3, 1)
    _ = x.clone()
    assert x._version == 0


def test_base_of_views():
    x = nbgrad.zeros(2, 3)
    assert x._base is None
    v = x.view(6)
    assert v._base is x
    vv = v[2:]
    assert vv._base is x  # a view of a view points at the root
    assert x.t()._base is x
    assert x[0]._base is x
    assert x.clone()._base is None
    assert (x + 1)._base is None


# --- dtype, device ---------------------------------------------------------

def test_dtype_and_device():
    x = nbgrad.zeros(2)
    assert x.dtype == nbgrad.float32
    assert x.dtype is nbgrad.float32
    assert str(x.device) == "cpu"
    assert x.device.type == "cpu"
    assert x.device == nbgrad.device("cpu")
    assert x.is_cuda is False
    assert re.fullmatch(NS + r"\.float32", str(x.dtype))


def test_is_floating_point():
    assert nbgrad.zeros(1).is_floating_point()
    assert not nbgrad.zeros(1, dtype=nbgrad.int64).is_floating_point()
    assert nbgrad.float64.is_floating_point
    assert not nbgrad.int32.is_floating_point
    assert nbgrad.float32.itemsize == 4


# --- iteration ------------------------------------------------------------

def test_iteration_yields_views_of_rows():
    x = nbgrad.arange(6).view(3, 2)
    rows = list(x)
    assert len(rows) == 3
    for i, r in enumerate(rows):
        assert r.shape == (2,)
        assert r.data_ptr() == x.data_ptr() + i * 2 * 8
        assert r.tolist() == [2 * i, 2 * i + 1]
    rows[1][0] = 100
    assert x[1, 0].item() == 100


def test_iteration_over_1d_yields_0dim_tensors():
    items = list(nbgrad.tensor([1.0, 2.0]))
    assert [t.shape for t in items] == [(), ()]
    assert [t.item() for t in items] == [1.0, 2.0]


def test_iterating_0dim_raises_typeerror():
    with pytest.raises(TypeError):
        iter(nbgrad.tensor(1.0))


# --- repr -----------------------------------------------------------------

def test_repr_float_vector():
    assert repr(nbgrad.tensor([1.0, 2.0])) == "tensor([1., 2.])"


def test_repr_requires_grad():
    assert repr(nbgrad.tensor([1.0, 2.0], requires_grad=True)) == "tensor([1., 2.], requires_grad=True)"


def test_repr_int_and_bool():
    assert repr(nbgrad.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(nbgrad.tensor([True, False])) == "tensor([ True, False])"


def test_repr_scalar_and_empty():
    assert repr(nbgrad.tensor(3.0)) == "tensor(3.)"
    assert repr(nbgrad.tensor(7)) == "tensor(7)"
    assert repr(nbgrad.zeros(0)) == "tensor([])"


def test_repr_non_default_dtype_is_named():
    r = repr(nbgrad.tensor([1, 2], dtype=nbgrad.int32))
    assert re.fullmatch(r"tensor\(\[1, 2\], dtype=" + NS + r"\.int32\)", r)
    r = repr(nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float64))
    assert re.fullmatch(r"tensor\(\[1., 2.\], dtype=" + NS + r"\.float64\)", r)


def test_repr_matrix_with_fractions_uses_four_decimals():
    r = repr(nbgrad.tensor([[1.5, 2.0], [3.0, 4.0]]))
    assert r == "tensor([[1.5000, 2.0000],\n        [3.0000, 4.0000]])"


def test_repr_aligns_columns():
    assert repr(nbgrad.tensor([1.25, 100.0])) == "tensor([  1.2500, 100.0000])"


def test_str_equals_repr():
    x = nbgrad.tensor([1.0, 2.0])
    assert str(x) == repr(x)


# --- type names -----------------------------------------------------------

def test_type_names():
    assert re.fullmatch(NS + r"\.FloatTensor", nbgrad.zeros(1).type())
    assert re.fullmatch(NS + r"\.DoubleTensor", nbgrad.zeros(1, dtype=nbgrad.float64).type())
    assert re.fullmatch(NS + r"\.LongTensor", nbgrad.zeros(1, dtype=nbgrad.int64).type())
    assert re.fullmatch(NS + r"\.IntTensor", nbgrad.zeros(1, dtype=nbgrad.int32).type())
    assert re.fullmatch(NS + r"\.BoolTensor", nbgrad.zeros(1, dtype=nbgrad.bool).type())


def test_isinstance_tensor():
    x = nbgrad.zeros(2)
    assert isinstance(x, nbgrad.Tensor)
    assert nbgrad.is_tensor(x)
    assert not nbgrad.is_tensor(np.zeros(2))


def test_in_operator_compares_elements():
    t = nbgrad.tensor([1, 2, 3])
    assert 2 in t
    assert 5 not in t
    assert nbgrad.tensor(3) in t


def test_float_of_a_tensor_that_requires_grad_warns_once(monkeypatch):
    # PyTorch 2.13: float(t) warns (TORCH_WARN_ONCE: once a process); int(t) and t.item() do not
    import warnings
    from nbgrad import _tensor
    monkeypatch.setattr(_tensor, "_WARNED_FLOAT_OF_GRAD", [False])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert int(nbgrad.tensor(2.0, requires_grad=True)) == 2
        assert nbgrad.tensor(2.0, requires_grad=True).item() == 2.0
        assert float(nbgrad.tensor(2.0)) == 2.0
        assert not seen
        assert float(nbgrad.tensor(2.5, requires_grad=True)) == 2.5
        assert float(nbgrad.tensor(3.5, requires_grad=True) * 2) == 7.0
    assert [(w.category, str(w.message)) for w in seen] == [
        (UserWarning, "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                      "Consider using tensor.detach() first.")]
