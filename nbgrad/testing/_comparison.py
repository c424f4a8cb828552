"""assert_close and assert_allclose: PyTorch's torch.testing comparison over nbgrad tensors.

As PyTorch's, the inputs are walked (sequences by position, mappings by key) into pairs of
leaves; each pair is handled by the first pair type that accepts it (None, booleans,
Python/NumPy numbers, tensor-likes) and compared; the first failure is raised with
PyTorch's message and exception type: AssertionError for values or attributes that
differ, TypeError for inputs no pair type handles, ValueError for bad options.

Departures from PyTorch: nbgrad has only strided tensors (no sparse, quantized, complex,
bfloat16 or float8 dtypes, no DTensor), so those branches are absent; dtypes print as
`nbgrad.float32` and sizes as `nbgrad.Size([...])` in the messages.
"""
import cmath
import collections.abc
import contextlib

import numpy as np

from .._warnings import warn_user as _warn_user
from .. import _dtype as D
from .._tensor import Tensor

__all__ = ["assert_close", "assert_allclose"]


class ErrorMeta(Exception):
    """A failure found while comparing: the exception type and message to raise, and the
    position (`id`) of the failing item in the inputs."""

    def __init__(self, type, msg, *, id=()):
        super().__init__("internal comparison error: raise ErrorMeta.to_error() for user facing errors")
        self.type = type
        self.msg = msg
        self.id = id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated_msg = self.msg
            if self.id:
                generated_msg += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
            msg = msg(generated_msg) if callable(msg) else generated_msg
        return self.type(msg)


# PyTorch's default tolerances per dtype (rtol, atol); any other dtype compares exactly
_DTYPE_PRECISIONS = {
    D.float16: (0.001, 1e-5),
    D.float32: (1.3e-6, 1e-5),
    D.float64: (1e-7, 1e-7),
}


def default_tolerances(*inputs, dtype_precisions=None):
    """The loosest (rtol, atol) of the inputs' dtypes (tensors or dtypes)."""
    dtypes = []
    for input in inputs:
        if isinstance(input, Tensor):
            dtypes.append(input.dtype)
        elif isinstance(input, D.dtype):
            dtypes.append(input)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(input)} instead.")
    dtype_precisions = dtype_precisions or _DTYPE_PRECISIONS
    rtols, atols = zip(*[dtype_precisions.get(dtype, (0.0, 0.0)) for dtype in dtypes])
    return max(rtols), max(atols)


def get_tolerances(*inputs, rtol, atol, id=()):
    """(rtol, atol): both given, or both omitted (the dtypes' defaults); one alone is an error."""
    if (rtol is None) ^ (atol is None):
        # one tolerance alone would surprise: atol=0.0 still passes values within rtol
        raise ErrorMeta(ValueError, f"Both 'rtol' and 'atol' must be either specified or omitted, "
                                    f"but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _make_mismatch_msg(*, default_identifier, identifier=None, extra=None, abs_diff, abs_diff_idx=None, atol,
                       rel_diff, rel_diff_idx=None, rtol):
    equality = rtol == 0 and atol == 0

    def make_diff_msg(*, type, diff, idx, tol):
        if idx is None:
            msg = f"{type.title()} difference: {diff}"
        else:
            msg = f"Greatest {type} difference: {diff} at index {idx}"
        if not equality:
            msg += f" (up to {tol} allowed)"
        return msg + "\n"

    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += make_diff_msg(type="absolute", diff=abs_diff, idx=abs_diff_idx, tol=atol)
    msg += make_diff_msg(type="relative", diff=rel_diff, idx=rel_diff_idx, tol=rtol)
    return msg.strip()


def make_scalar_mismatch_msg(actual, expected, *, rtol, atol, identifier=None):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _make_mismatch_msg(default_identifier="Scalars", identifier=identifier,
                              extra=f"Expected {expected} but got {actual}.", abs_diff=abs_diff, atol=atol,
                              rel_diff=rel_diff, rtol=rtol)


def make_tensor_mismatch_msg(actual, expected, matches, *, rtol, atol, identifier=None):
    """The message for tensors not close: how many elements differ, and the greatest
    absolute and relative differences among them with their (first) indices.  The
    differences are computed in the tensors' dtype (integers and bools in int64), as
    PyTorch's are, so the printed numbers are the same."""
    from .. import _creation
    import nbgrad

    def unravel_flat_index(flat_index):
        if not matches.shape:
            return ()
        inverse_index = []
        for size in tuple(matches.shape)[::-1]:
            flat_index, mod = divmod(flat_index, size)
            inverse_index.append(mod)
        return tuple(inverse_index[::-1])

    number_of_elements = matches.numel()
    total_mismatches = number_of_elements - int(matches.sum())
    extra = (f"Mismatched elements: {total_mismatches} / {number_of_elements} "
             f"({total_mismatches / number_of_elements:.1%})")
    actual_flat = actual.flatten()
    expected_flat = expected.flatten()
    matches_flat = matches.flatten()
    if not actual.dtype.is_floating_point:
        # (no overflow in the difference of two integers of a narrower type)
        actual_flat = actual_flat.to(D.int64)
        expected_flat = expected_flat.to(D.int64)
    abs_diff = nbgrad.abs(actual_flat - expected_flat)
    zero = _creation.zeros((), dtype=abs_diff.dtype)
    abs_diff = nbgrad.where(matches_flat, zero, abs_diff)     # only mismatches count
    max_abs_diff, max_abs_diff_flat_idx = nbgrad.max(abs_diff, 0)
    rel_diff = abs_diff / nbgrad.abs(expected_flat)
    rel_diff = nbgrad.where(matches_flat, _creation.zeros((), dtype=rel_diff.dtype), rel_diff)
    max_rel_diff, max_rel_diff_flat_idx = nbgrad.max(rel_diff, 0)
    return _make_mismatch_msg(
        default_identifier="Tensor-likes", identifier=identifier, extra=extra,
        abs_diff=max_abs_diff.item(), abs_diff_idx=unravel_flat_index(int(max_abs_diff_flat_idx)), atol=atol,
        rel_diff=max_rel_diff.item(), rel_diff_idx=unravel_flat_index(int(max_rel_diff_flat_idx)), rtol=rtol)


class UnsupportedInputs(Exception):
    """Raised while making a pair that does not handle its inputs: the next pair type is tried."""


class Pair:
    """Two leaves to compare, and the options; compare() raises ErrorMeta on a mismatch."""

    def __init__(self, actual, expected, *, id=(), **unknown_parameters):
        self.actual = actual
        self.expected = expected
        self.id = id
        self._unknown_parameters = unknown_parameters

    @staticmethod
    def _inputs_not_supported():
        raise UnsupportedInputs

    @staticmethod
    def _check_inputs_isinstance(*inputs, cls):
        if not all(isinstance(input, cls) for input in inputs):
            Pair._inputs_not_supported()

    def _fail(self, type, msg, *, id=()):
        raise ErrorMeta(type, msg, id=self.id if not id and hasattr(self, "id") else id)

    def compare(self):
        raise NotImplementedError

    def extra_repr(self):
        return []

    def __repr__(self):
        body = [f"    {name}={value!s}," for name, value in
                [("id", self.id), ("actual", self.actual), ("expected", self.expected),
                 *[(extra, getattr(self, extra)) for extra in self.extra_repr()]]]
        return "\n".join((f"{type(self).__name__}(", *body, ")"))


class NonePair(Pair):
    def __init__(self, actual, expected, **other_parameters):
        if not (actual is None or expected is None):
            self._inputs_not_supported()
        super().__init__(actual, expected, **other_parameters)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class BooleanPair(Pair):
    """Python and NumPy booleans."""

    def __init__(self, actual, expected, *, id, **other_parameters):
        self._check_inputs_isinstance(actual, expected, cls=(bool, np.bool_))
        actual, expected = (bool(b) for b in (actual, expected))
        super().__init__(actual, expected, id=id, **other_parameters)

    def compare(self):
        if self.actual is not self.expected:
            self._fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class NumberPair(Pair):
    """Python numbers (int as int64, float as float64 for the tolerances) and NumPy numbers."""

    _TYPE_TO_DTYPE = {int: D.int64, float: D.float64}
    _NUMBER_TYPES = (int, float, complex)

    def __init__(self, actual, expected, *, id=(), rtol=None, atol=None, equal_nan=False, check_dtype=False,
                 **other_parameters):
        self._check_inputs_isinstance(actual, expected, cls=(*self._NUMBER_TYPES, np.number))
        actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        super().__init__(actual, expected, id=id, **other_parameters)
        # complex has PyTorch's complex128 tolerances, which equal float64's
        dtypes = [self._TYPE_TO_DTYPE.get(type(x), D.float64) for x in (actual, expected)]
        self.rtol, self.atol = get_tolerances(*dtypes, rtol=rtol, atol=atol, id=id)
        self.equal_nan = equal_nan
        self.check_dtype = check_dtype

    def compare(self):
        if self.check_dtype and type(self.actual) is not type(self.expected):
            self._fail(AssertionError,
                       f"The (d)types do not match: {type(self.actual)} != {type(self.expected)}.")
        if self.actual == self.expected:
            return
        if self.equal_nan and cmath.isnan(self.actual) and cmath.isnan(self.expected):
            return
        abs_diff = abs(self.actual - self.expected)
        tolerance = self.atol + self.rtol * abs(self.expected)
        if cmath.isfinite(abs_diff) and abs_diff <= tolerance:
            return
        self._fail(AssertionError, make_scalar_mismatch_msg(self.actual, self.expected, rtol=self.rtol,
                                                            atol=self.atol))

    def extra_repr(self):
        return ("rtol", "atol", "equal_nan", "check_dtype")


class TensorLikePair(Pair):
    """Tensors, and anything as_tensor converts (NumPy arrays), of directly related types."""

    def __init__(self, actual, expected, *, id=(), allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, **other_parameters):
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            self._inputs_not_supported()
        if not allow_subclasses and type(actual) is not type(expected):
            self._inputs_not_supported()
        actual, expected = (self._to_tensor(x) for x in (actual, expected))
        super().__init__(actual, expected, id=id, **other_parameters)
        self.rtol, self.atol = get_tolerances(actual, expected, rtol=rtol, atol=atol, id=self.id)
        self.equal_nan = equal_nan
        self.check_device = check_device
        self.check_dtype = check_dtype
        self.check_layout = check_layout
        self.check_stride = check_stride

    def _to_tensor(self, tensor_like):
        if isinstance(tensor_like, Tensor):
            return tensor_like
        from .._creation import as_tensor
        try:
            return as_tensor(tensor_like)
        except Exception:
            self._inputs_not_supported()

    def compare(self):
        actual, expected = self.actual, self.expected
        self._compare_attributes(actual, expected)
        if any(t.device.type == "meta" for t in (actual, expected)):
            return
        actual, expected = self._equalize_attributes(actual, expected)
        self._compare_values(actual, expected)

    def _compare_attributes(self, actual, expected):
        def raise_mismatch_error(attribute_name, actual_value, expected_value):
            self._fail(AssertionError, f"The values for attribute '{attribute_name}' do not match: "
                                       f"{actual_value} != {expected_value}.")

        if actual.shape != expected.shape:
            raise_mismatch_error("shape", actual.shape, expected.shape)
        if actual.layout != expected.layout:
            if self.check_layout:
                raise_mismatch_error("layout", actual.layout, expected.layout)
        elif self.check_stride and actual.stride() != expected.stride():
            raise_mismatch_error("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            raise_mismatch_error("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            raise_mismatch_error("dtype", actual.dtype, expected.dtype)

    def _equalize_attributes(self, actual, expected):
        """On different devices: both to the CPU; of different dtypes: both to their
        promoted dtype."""
        from .._dtype import promote_types
        if actual.device != expected.device:
            actual, expected = actual.cpu(), expected.cpu()
        if actual.dtype != expected.dtype:
            dtype = promote_types(actual.dtype, expected.dtype)
            actual, expected = actual.to(dtype), expected.to(dtype)
        return actual, expected

    def _compare_values(self, actual, expected):
        self._compare_regular_values_close(actual, expected, rtol=self.rtol, atol=self.atol,
                                           equal_nan=self.equal_nan)

    def _compare_regular_values_close(self, actual, expected, *, rtol, atol, equal_nan, identifier=None):
        import nbgrad
        from ..autograd.grad_mode import no_grad
        with no_grad():         # (comparing records nothing, whatever the inputs require)
            matches = nbgrad.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
            if bool(matches.all()):
                return
            if actual.shape == ():
                msg = make_scalar_mismatch_msg(actual.item(), expected.item(), rtol=rtol, atol=atol,
                                               identifier=identifier)
            else:
                msg = make_tensor_mismatch_msg(actual, expected, matches, rtol=rtol, atol=atol,
                                               identifier=identifier)
        self._fail(AssertionError, msg)

    def extra_repr(self):
        return ("rtol", "atol", "equal_nan", "check_device", "check_dtype", "check_layout", "check_stride")


def originate_pairs(actual, expected, *, pair_types, sequence_types=(collections.abc.Sequence,),
                    mapping_types=(collections.abc.Mapping,), id=(), **options):
    """The pairs of leaves of two (nested) inputs; ErrorMeta where their structures differ
    or no pair type handles a leaf."""
    # (strings are excluded from the sequences: "a"[0] is "a" again)
    if isinstance(actual, sequence_types) and not isinstance(actual, str) \
            and isinstance(expected, sequence_types) and not isinstance(expected, str):
        actual_len, expected_len = len(actual), len(expected)
        if actual_len != expected_len:
            raise ErrorMeta(AssertionError,
                            f"The length of the sequences mismatch: {actual_len} != {expected_len}", id=id)
        pairs = []
        for idx in range(actual_len):
            pairs.extend(originate_pairs(actual[idx], expected[idx], pair_types=pair_types,
                                         sequence_types=sequence_types, mapping_types=mapping_types,
                                         id=(*id, idx), **options))
        return pairs
    if isinstance(actual, mapping_types) and isinstance(expected, mapping_types):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            missing_keys = expected_keys - actual_keys
            additional_keys = actual_keys - expected_keys
            raise ErrorMeta(AssertionError, f"The keys of the mappings do not match:\n"
                                            f"Missing keys in the actual mapping: {sorted(missing_keys)}\n"
                                            f"Additional keys in the actual mapping: {sorted(additional_keys)}",
                            id=id)
        keys = actual_keys
        with contextlib.suppress(Exception):     # (sorted when sortable: the first failure is then stable)
            keys = sorted(keys)
        pairs = []
        for key in keys:
            pairs.extend(originate_pairs(actual[key], expected[key], pair_types=pair_types,
                                         sequence_types=sequence_types, mapping_types=mapping_types,
                                         id=(*id, key), **options))
        return pairs
    for pair_type in pair_types:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except UnsupportedInputs:
            continue
        except ErrorMeta:
            raise
        except Exception as error:
            raise RuntimeError(
                f"Originating a {pair_type.__name__}() at item {''.join(str([item]) for item in id)} with\n\n"
                f"{type(actual).__name__}(): {actual}\n\nand\n\n{type(expected).__name__}(): {expected}\n\n"
                "resulted in the unexpected exception above.") from error
    raise ErrorMeta(TypeError,
                    f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.",
                    id=id)


def not_close_error_metas(actual, expected, *, pair_types=(NonePair,), sequence_types=(collections.abc.Sequence,),
                          mapping_types=(collections.abc.Mapping,), **options):
    """The failures of every pair (a structure that differs raises at once)."""
    __tracebackhide__ = True
    try:
        pairs = originate_pairs(actual, expected, pair_types=pair_types, sequence_types=sequence_types,
                                mapping_types=mapping_types, **options)
    except ErrorMeta as error_meta:
        raise error_meta.to_error() from None
    error_metas = []
    for pair in pairs:
        try:
            pair.compare()
        except ErrorMeta as error_meta:
            error_metas.append(error_meta)
        except Exception as error:
            raise RuntimeError(f"Comparing\n\n{pair}\n\nresulted in the unexpected exception above.") from error
    return error_metas


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    r"""Assert that `actual` and `expected` are close:
    |actual - expected| <= atol + rtol * |expected| elementwise (infinities only equal to
    themselves, NaN to NaN with equal_nan=True), with the same shape, and the same device,
    dtype, layout and strides where the check_* flags ask.  Inputs may be tensors, NumPy
    arrays, Python or NumPy numbers, None, and sequences or mappings of these.  Default
    tolerances per dtype (the loosest of the two): float16 (1e-3, 1e-5), float32
    (1.3e-6, 1e-5), float64 (1e-7, 1e-7), else exact.  `msg`: a string to raise instead of
    the generated message, or a callable given the generated message."""
    __tracebackhide__ = True
    error_metas = not_close_error_metas(
        actual, expected, pair_types=(NonePair, BooleanPair, NumberPair, TensorLikePair),
        allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
        check_dtype=check_dtype, check_layout=check_layout, check_stride=check_stride, msg=msg)
    if error_metas:
        raise error_metas[0].to_error(msg)


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated (as in PyTorch since 1.12): assert_close with other defaults: dtypes not
    checked, NaN equal to NaN, looser tolerances (float16 (1e-3, 1e-3), float32 (1e-4, 1e-5),
    float64 (1e-5, 1e-8)); non-tensors become tensors, `expected` of `actual`'s dtype."""
    _warn_user(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
        "Please use `torch.testing.assert_close()` instead. "
        "You can find detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning, stacklevel=2)
    from .._creation import tensor
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected, dtype_precisions={
            D.float16: (1e-3, 1e-3), D.float32: (1e-4, 1e-5), D.float64: (1e-5, 1e-8)})
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)
