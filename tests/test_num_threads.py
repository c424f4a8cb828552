"""nbgrad.set_num_threads / get_num_threads: PyTorch's argument rules (recorded from
torch 2.13: torch.set_num_threads with each argument below).  The public API only, so
that NBGRAD_TESTS_AGAINST_TORCH=1 checks these tests against PyTorch itself."""
import numpy as np
import pytest

import nbgrad


@pytest.fixture(autouse=True)
def restore_thread_count():
    before = nbgrad.get_num_threads()
    yield
    nbgrad.set_num_threads(before)


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_get_returns_what_was_set(n):
    nbgrad.set_num_threads(n)
    assert nbgrad.get_num_threads() == n


def test_numpy_integers_and_int_subclasses_are_ints():
    class Count(int):
        pass
    nbgrad.set_num_threads(np.int64(3))
    assert nbgrad.get_num_threads() == 3
    nbgrad.set_num_threads(np.int32(2))
    assert nbgrad.get_num_threads() == 2
    nbgrad.set_num_threads(Count(5))
    assert nbgrad.get_num_threads() == 5
    assert type(nbgrad.get_num_threads()) is int


@pytest.mark.parametrize("n", [0, -1, -(2 ** 31), np.int64(0)])
def test_not_positive_raises(n):
    nbgrad.set_num_threads(2)
    with pytest.raises(RuntimeError, match="^set_num_threads expects a positive integer$"):
        nbgrad.set_num_threads(n)
    assert nbgrad.get_num_threads() == 2


class _Index:
    def __index__(self):
        return 2


@pytest.mark.parametrize("value, name", [
    (1.5, "float"), (2.0, "float"), ("2", "str"), (True, "bool"), (None, "NoneType"),
    (np.float64(2), "numpy.float64"), (np.bool_(True), "numpy.bool"), (_Index(), "_Index"),
    ([2], "list"),
])
def test_not_an_int_raises(value, name):
    nbgrad.set_num_threads(2)
    with pytest.raises(RuntimeError, match=rf"^set_num_threads expects an int, but got {name}$"):
        nbgrad.set_num_threads(value)
    assert nbgrad.get_num_threads() == 2


def test_a_tensor_is_not_an_int():
    with pytest.raises(RuntimeError, match=r"^set_num_threads expects an int, but got Tensor$"):
        nbgrad.set_num_threads(nbgrad.tensor(2))


@pytest.mark.parametrize("value, message", [
    (2 ** 31, "Overflow when unpacking long"), (-(2 ** 31) - 1, "Overflow when unpacking long"),
    (2 ** 63, "Overflow when unpacking long long"), (-(2 ** 63) - 1, "Overflow when unpacking long long"),
])
def test_out_of_range_raises_value_error(value, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        nbgrad.set_num_threads(value)


def test_one_argument_exactly():
    with pytest.raises(TypeError):
        nbgrad.set_num_threads()
    with pytest.raises(TypeError):
        nbgrad.set_num_threads(1, 2)
