"""nbgrad.testing (torch.testing): assert_close's tolerances, checks, messages and error
types (recorded from PyTorch 2.13), the deprecated assert_allclose, and make_tensor's
ranges and layouts."""
import collections
import math
import re
import warnings

import numpy as np
import pytest

import nbgrad

T = nbgrad.testing


def _dtype_name(dt):
    return str(dt).split(".")[-1]


# ------------------------------------------------------------------------------ assert_close
def test_close_values_pass():
    expected = nbgrad.tensor([1e0, 1e-1, 1e-2])
    T.assert_close(nbgrad.acos(nbgrad.cos(expected)), expected)
    T.assert_close(math.sqrt(2.0), 2.0 / math.sqrt(2.0))
    T.assert_close(np.array([1e0, 1e-1]), np.arccos(np.cos(np.array([1e0, 1e-1]))))


def test_tensor_mismatch_message():
    with pytest.raises(AssertionError) as info:
        T.assert_close(nbgrad.tensor([1., 4., 5.]), nbgrad.tensor([1., 2., 3.]))
    assert str(info.value) == (
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)")


def test_mismatch_indices_are_multidimensional_and_relative_difference_can_be_inf():
    with pytest.raises(AssertionError) as info:
        T.assert_close(nbgrad.tensor([[1., 4.], [5., 6.]]), nbgrad.tensor([[1., 2.], [0., 6.]]))
    assert str(info.value) == (
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 2 / 4 (50.0%)\n"
        "Greatest absolute difference: 5.0 at index (1, 0) (up to 1e-05 allowed)\n"
        "Greatest relative difference: inf at index (1, 0) (up to 1.3e-06 allowed)")


def test_integer_tensors_compare_exactly():
    with pytest.raises(AssertionError) as info:
        T.assert_close(nbgrad.tensor([1, 4, 5]), nbgrad.tensor([1, 2, 3]))
    assert str(info.value) == (
        "Tensor-likes are not equal!\n\n"
        "Mismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 2 at index (1,)\n"
        "Greatest relative difference: 1.0 at index (1,)")
    # (the difference is taken in int64: no uint8 wrap-around)
    with pytest.raises(AssertionError, match=r"Greatest absolute difference: 255 at index \(0,\)"):
        T.assert_close(nbgrad.tensor([0, 1], dtype=nbgrad.uint8), nbgrad.tensor([255, 1], dtype=nbgrad.uint8))
    with pytest.raises(AssertionError, match="Tensor-likes are not equal!"):
        T.assert_close(nbgrad.tensor([True, False]), nbgrad.tensor([True, True]))


@pytest.mark.parametrize("dtype, rtol, atol, inside, outside", [
    ("float16", 1e-3, 1e-5, 1000.5, 1002.0),            # (float16's spacing at 1000 is 0.5)
    ("float32", 1.3e-6, 1e-5, 1000.00122, 1000.00195),  # allowed: 1e-5 + 1.3e-6 * 1000
    ("float64", 1e-7, 1e-7, 1000.00009, 1000.00011)])   # allowed: 1e-7 + 1e-7 * 1000
def test_default_tolerances_per_dtype(dtype, rtol, atol, inside, outside):
    dt = getattr(nbgrad, dtype)
    expected = nbgrad.tensor([1000.0], dtype=dt)
    T.assert_close(nbgrad.tensor([inside], dtype=dt), expected)
    with pytest.raises(AssertionError) as info:
        T.assert_close(nbgrad.tensor([outside], dtype=dt), expected)
    assert f"(up to {atol} allowed)" in str(info.value) and f"(up to {rtol} allowed)" in str(info.value)


def test_explicit_tolerances_and_only_one_given():
    T.assert_close(nbgrad.tensor([1.0]), nbgrad.tensor([1.1]), rtol=0.0, atol=0.2)
    with pytest.raises(ValueError, match=r"^Both 'rtol' and 'atol' must be either specified or omitted, "
                                         r"but got no atol\.$"):
        T.assert_close(nbgrad.tensor(1.), nbgrad.tensor(1.), rtol=0)
    with pytest.raises(ValueError, match="but got no rtol"):
        T.assert_close(nbgrad.tensor(1.), nbgrad.tensor(1.), atol=0)


def test_zero_tolerances_say_equal():
    with pytest.raises(AssertionError) as info:
        T.assert_close(1e-9, 1e-10, rtol=0, atol=0)
    assert str(info.value) == ("Scalars are not equal!\n\nExpected 1e-10 but got 1e-09.\n"
                               "Absolute difference: 9.000000000000001e-10\nRelative difference: 9.0")


def test_nan_and_equal_nan():
    nan = nbgrad.tensor(float("nan"))
    with pytest.raises(AssertionError) as info:
        T.assert_close(nan, nan.clone())
    assert str(info.value) == ("Scalars are not close!\n\nExpected nan but got nan.\n"
                               "Absolute difference: nan (up to 1e-05 allowed)\n"
                               "Relative difference: nan (up to 1.3e-06 allowed)")
    T.assert_close(nan, nan.clone(), equal_nan=True)
    T.assert_close(float("nan"), float("nan"), equal_nan=True)
    with pytest.raises(AssertionError):
        T.assert_close(float("nan"), float("nan"))


def test_infinities_only_close_to_themselves():
    inf = float("inf")
    T.assert_close(nbgrad.tensor([inf, -inf]), nbgrad.tensor([inf, -inf]))
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        T.assert_close(nbgrad.tensor([inf, 1.0]), nbgrad.tensor([-inf, 1.0]))


def test_attribute_checks():
    a32, a64 = nbgrad.tensor([1.]), nbgrad.tensor([1.], dtype=nbgrad.float64)
    with pytest.raises(AssertionError, match=r"^The values for attribute 'dtype' do not match: "
                                             r"\w+\.float32 != \w+\.float64\.$"):
        T.assert_close(a32, a64)
    T.assert_close(a32, a64, check_dtype=False)
    with pytest.raises(AssertionError, match=r"^The values for attribute 'shape' do not match: "
                                             r"\w+\.Size\(\[1\]\) != \w+\.Size\(\[2\]\)\.$"):
        T.assert_close(nbgrad.tensor([1.]), nbgrad.tensor([1., 2.]))
    t = nbgrad.zeros(2, 3).t()
    T.assert_close(t, nbgrad.zeros(3, 2))
    with pytest.raises(AssertionError, match=re.escape("The values for attribute 'stride()' do not match: "
                                                       "(1, 3) != (2, 1).")):
        T.assert_close(t, nbgrad.zeros(3, 2), check_stride=True)
    T.assert_close(nbgrad.zeros(2), nbgrad.zeros(2), check_device=True, check_layout=True)


def test_check_dtype_false_compares_in_the_promoted_dtype_with_the_looser_tolerance():
    with pytest.raises(AssertionError) as info:
        T.assert_close(nbgrad.tensor([1., 0.]), nbgrad.tensor([1., 2.], dtype=nbgrad.float64), check_dtype=False)
    assert "(up to 1e-05 allowed)" in str(info.value) and "(up to 1.3e-06 allowed)" in str(info.value)
    # 1e-6 apart: float64's tolerance alone would fail, float32's passes
    T.assert_close(nbgrad.tensor([1.0], dtype=nbgrad.float64), nbgrad.tensor([1.0 + 1e-6], dtype=nbgrad.float64)
                   .float(), check_dtype=False)


def test_python_scalars():
    with pytest.raises(AssertionError, match=re.escape("The (d)types do not match: <class 'float'> != <class 'int'>.")):
        T.assert_close(1.0, 1)
    T.assert_close(1.0, 1, check_dtype=False)
    with pytest.raises(AssertionError) as info:
        T.assert_close(1.0, 1.1)
    assert str(info.value) == ("Scalars are not close!\n\nExpected 1.1 but got 1.0.\n"
                               "Absolute difference: 0.10000000000000009 (up to 1e-07 allowed)\n"
                               "Relative difference: 0.09090909090909098 (up to 1e-07 allowed)")
    T.assert_close(np.float32(2.5), 2.5)
    with pytest.raises(AssertionError, match="^Booleans mismatch: True is not False$"):
        T.assert_close(True, False)
    with pytest.raises(AssertionError, match="^None mismatch: None is not 1$"):
        T.assert_close(None, 1)
    T.assert_close(None, None)


def test_unrelated_inputs_are_type_errors():
    with pytest.raises(TypeError, match=r"^No comparison pair was able to handle inputs of type <class 'float'> and "):
        T.assert_close(1.0, nbgrad.tensor(1.))
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type <class 'str'>"):
        T.assert_close("a", "a")
    with pytest.raises(TypeError, match="<class 'numpy.ndarray'>"):
        T.assert_close(np.zeros(2), nbgrad.zeros(2))


def test_subclasses():
    p = nbgrad.nn.Parameter(nbgrad.zeros(2))
    T.assert_close(p, nbgrad.zeros(2))
    with pytest.raises(TypeError, match="Parameter'> and <class '"):
        T.assert_close(p, nbgrad.zeros(2), allow_subclasses=False)


def test_sequences_and_mappings():
    expected = [nbgrad.tensor([1.0]), 2.0, np.array(3.0)]
    T.assert_close(tuple(expected), expected)
    T.assert_close({"baz": 3.0, "foo": nbgrad.tensor(1.0)},
                   collections.OrderedDict([("foo", nbgrad.tensor(1.0)), ("baz", 3.0)]))
    with pytest.raises(AssertionError, match=r"^The length of the sequences mismatch: 2 != 3$"):
        T.assert_close([1, 2], [1, 2, 3])
    with pytest.raises(AssertionError) as info:
        T.assert_close({"a": 1}, {"b": 1})
    assert str(info.value) == ("The keys of the mappings do not match:\nMissing keys in the actual mapping: ['b']\n"
                               "Additional keys in the actual mapping: ['a']")
    nan = float("nan")
    with pytest.raises(AssertionError) as info:
        T.assert_close([nbgrad.tensor(1.), {"a": nbgrad.tensor([1., nan])}],
                       [nbgrad.tensor(1.), {"a": nbgrad.tensor([1., nan])}])
    assert str(info.value).endswith(
        "Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)\n\n"
        "The failure occurred for item [1]['a']")


def test_msg_string_and_callable():
    a, b = nbgrad.tensor([1., 4., 5.]), nbgrad.tensor([1., 2., 3.])
    with pytest.raises(AssertionError, match="^Argh, the tensors are not close!$"):
        T.assert_close(a, b, msg="Argh, the tensors are not close!")
    with pytest.raises(AssertionError) as info:
        T.assert_close(a, b, msg=lambda m: f"Header\n\n{m}\n\nFooter")
    assert str(info.value) == (
        "Header\n\nTensor-likes are not close!\n\nMismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)\n\nFooter")
    with pytest.raises(AssertionError, match="^custom$"):
        T.assert_close([a], [b], msg="custom")


def test_inputs_that_require_grad_are_compared_and_left_alone():
    x = nbgrad.tensor([1., 2.], requires_grad=True)
    T.assert_close(x, x.detach().clone())
    assert x.grad is None and x.grad_fn is None


def test_assert_allclose_is_deprecated_and_looser():
    with pytest.warns(FutureWarning, match=r"assert_allclose\(\)` is deprecated since 1.12"):
        T.assert_allclose(nbgrad.tensor([1.0, float("nan")]), [1.00005, float("nan")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(AssertionError, match="Tensor-likes are not close"):
            T.assert_allclose(nbgrad.tensor([1.0]), [1.001])
        # dtypes are not checked
        T.assert_allclose(nbgrad.tensor([1.0]), nbgrad.tensor([1.0], dtype=nbgrad.float64))


# ------------------------------------------------------------------------------ make_tensor
@pytest.mark.parametrize("dtype, low, high", [("bool", 0, 1), ("uint8", 0, 9), ("int8", -9, 9), ("int16", -9, 9),
                                              ("int32", -9, 9), ("int64", -9, 9), ("float16", -9, 9),
                                              ("float32", -9, 9), ("float64", -9, 9)])
def test_make_tensor_default_ranges(dtype, low, high):
    dt = getattr(nbgrad, dtype)
    t = T.make_tensor(4000, dtype=dt, device="cpu")
    assert t.dtype == dt and t.shape == (4000,) and t.device.type == "cpu"
    v = t.to(nbgrad.float64)
    assert v.min().item() >= low and v.max().item() <= high
    if dtype in ("float16", "float32", "float64"):
        assert v.max().item() < 9
        assert v.min().item() < -8 and v.max().item() > 8       # spread over the range
    else:
        assert v.min().item() == low and v.max().item() == high     # every end value drawn


def test_make_tensor_low_high_and_clamping():
    t = T.make_tensor((3, 500), dtype=nbgrad.float32, device="cpu", low=2.0, high=2.5)
    assert t.min().item() >= 2.0 and t.max().item() < 2.5
    u = T.make_tensor(2000, dtype=nbgrad.uint8, device="cpu", low=-100, high=3)     # low clamped to 0
    assert u.min().item() == 0 and u.max().item() == 2
    i = T.make_tensor(2000, dtype=nbgrad.int64, device="cpu", low=0.5, high=2.5)     # ceiled: [1, 3)
    assert set(i.tolist()) == {1, 2}
    big = T.make_tensor(1000, dtype=nbgrad.float64, device="cpu", low=-1e309, high=1e309)
    assert bool(nbgrad.isfinite(big).all()) and big.abs().max().item() > 1e300


def test_make_tensor_errors():
    with pytest.raises(ValueError, match=r"^`low` must be less than `high`, but got 3 >= 2$"):
        T.make_tensor(2, dtype=nbgrad.int32, device="cpu", low=3, high=2)
    with pytest.raises(ValueError, match="`low` and `high` cannot be NaN"):
        T.make_tensor(2, dtype=nbgrad.float32, device="cpu", low=float("nan"))
    with pytest.raises(ValueError, match=r"^The value interval specified by `low` and `high` is \[300, 400\), "
                                         r"but \w+\.uint8 only supports \[0, 256\)$"):
        T.make_tensor(2, dtype=nbgrad.uint8, device="cpu", low=300, high=400)
    with pytest.raises(ValueError, match="`requires_grad=True` is not supported for boolean and integral dtypes"):
        T.make_tensor(2, dtype=nbgrad.int64, device="cpu", requires_grad=True)
    with pytest.raises(ValueError, match="`noncontiguous` and `memory_format` are mutually exclusive"):
        T.make_tensor(2, 2, dtype=nbgrad.float32, device="cpu", noncontiguous=True,
                      memory_format=nbgrad.contiguous_format)
    with pytest.warns(FutureWarning, match="Passing `low==high`"):
        T.make_tensor(2, dtype=nbgrad.float32, device="cpu", low=1.0, high=1.0)


def test_make_tensor_shapes_and_layouts():
    assert T.make_tensor([2, 3], dtype=nbgrad.float32, device="cpu").shape == (2, 3)
    assert T.make_tensor(2, 3, dtype=nbgrad.float32, device="cpu").shape == (2, 3)
    assert T.make_tensor((), dtype=nbgrad.float32, device="cpu").shape == ()
    nc = T.make_tensor(3, 4, dtype=nbgrad.float32, device="cpu", noncontiguous=True)
    assert nc.shape == (3, 4) and not nc.is_contiguous() and nc.stride() == (8, 2) and nc.storage_offset() == 1
    one = T.make_tensor(1, dtype=nbgrad.float32, device="cpu", noncontiguous=True)    # too small: ignored
    assert one.is_contiguous()
    cl = T.make_tensor(2, 3, 4, 5, dtype=nbgrad.float32, device="cpu", memory_format=nbgrad.channels_last)
    assert cl.stride() == (60, 1, 15, 3)


def test_make_tensor_requires_grad_and_exclude_zero():
    t = T.make_tensor(5, dtype=nbgrad.float64, device="cpu", requires_grad=True)
    assert t.requires_grad and t.is_leaf
    assert not T.make_tensor(5, dtype=nbgrad.float64, device="cpu").requires_grad
    b = T.make_tensor(2000, dtype=nbgrad.bool, device="cpu", exclude_zero=True)
    assert bool(b.all())
    i = T.make_tensor(2000, dtype=nbgrad.int8, device="cpu", low=-1, high=1, exclude_zero=True)
    assert set(i.tolist()) == {-1, 1}
    f = T.make_tensor(2000, dtype=nbgrad.float16, device="cpu", low=0, high=0.001, exclude_zero=True)
    assert bool((f != 0).all())


def test_make_tensor_unsupported_dtype():
    with pytest.raises(TypeError, match="is not supported by torch.testing.make_tensor()"):
        T.make_tensor(2, dtype="float32", device="cpu")
