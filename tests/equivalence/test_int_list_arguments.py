"""How PyTorch's argument parser reads int lists and SymInts (PyTorch 2.13's behaviour recorded;
API fuzz seed 50): its type check reads a list's first element only (an int, not a bool, or an
integral or bool tensor of one element), and the later ones are unpacked as Python ints, which a
Python bool is (torch.zeros(2, True) has shape (2, 1)); a bool tensor is an int list's 0 or 1
(sum's dims, flip's) and a SymInt's or SymInt list's RuntimeError (a size, select's index),
except in an int[1] given alone (roll's shifts)."""
import numpy as np
import pytest

import nbgrad

F = nbgrad.nn.functional
SYMINT_BOOL = "scalar.isIntegral\\( false\\)"      # (a single SymInt: PyTorch words it as an internal assert)


def x():
    return nbgrad.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("call, shape", [
    (lambda: nbgrad.zeros(2, True), (2, 1)),
    (lambda: nbgrad.zeros((2, False)), (2, 0)),
    (lambda: x().reshape(6, True), (6, 1)),
    (lambda: x().view(6, True), (6, 1)),
    (lambda: x().new_zeros(2, True), (2, 1)),
    (lambda: x().new_ones((2, True)), (2, 1)),
    (lambda: x().permute(1, False), (3, 2)),
    (lambda: x().tile((2, True)), (4, 3)),
    (lambda: x().repeat(2, True), (4, 3)),
    (lambda: x().amax((1, False)), ()),
    (lambda: x().mean((0, True)), ()),
    (lambda: x().sum_to_size(2, True), (2, 1)),
    (lambda: x().unflatten(1, (3, True)), (2, 3, 1)),
    (lambda: x().movedim((0, True), (1, 0)), (3, 2)),
    (lambda: nbgrad.empty_strided((2, True), (1, True)), (2, 1)),
    (lambda: x().as_strided((2, True), (1, True)), (2, 1)),
    (lambda: F.pad(x(), (1, True)), (2, 5)),
    (lambda: F.max_pool2d(x()[None], (1, True)), (1, 2, 3)),
    (lambda: F.adaptive_avg_pool2d(x()[None], (1, True)), (1, 1, 1)),
])
def test_a_later_python_bool_is_an_int(call, shape):
    assert tuple(call().shape) == shape


def test_later_bools_give_the_values_of_their_ints():
    assert [tuple(t.shape) for t in x().hsplit([3, False])] == [(2, 3), (2, 0), (2, 3)]
    assert [tuple(t.shape) for t in x().split([1, True])] == [(1, 3), (1, 3)]
    assert [tuple(t.shape) for t in x().tensor_split((1, True))] == [(1, 3), (0, 3), (1, 3)]
    assert x().flip((1, False)).tolist() == [[5.0, 4.0, 3.0], [2.0, 1.0, 0.0]]
    with pytest.raises(RuntimeError, match="^dim 1 appears multiple times in the list of dims$"):
        x().sum((1, True))
    with pytest.raises(RuntimeError, match="The expanded size of the tensor \\(1\\) must match the existing size "
                                           "\\(2\\) at non-singleton dimension 1"):
        x().expand(2, True, 3)


@pytest.mark.parametrize("call", [lambda: nbgrad.zeros([True, 2]), lambda: x().reshape((True, 6)),
                                  lambda: x().reshape(6, np.True_), lambda: nbgrad.zeros(2, np.bool_(True)),
                                  lambda: x().sum((1, np.True_)), lambda: x().reshape(6, 1.0),
                                  lambda: F.adaptive_avg_pool2d(x()[None], True),
                                  lambda: F.adaptive_max_pool1d(x()[None], True)])
def test_a_first_bool_and_numpy_bools_are_refused(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize("call", [
    lambda: x().view(6, nbgrad.tensor(True)), lambda: x().reshape(nbgrad.tensor(True), 6),
    lambda: nbgrad.zeros(2, nbgrad.tensor(True)), lambda: x().expand(nbgrad.tensor(True), 2, 3),
    lambda: x().tile((nbgrad.tensor(True),)), lambda: x().repeat(2, nbgrad.tensor(True)),
    lambda: x().unflatten(1, (3, nbgrad.tensor(True))), lambda: F.pad(x(), (nbgrad.tensor(True), 1)),
    lambda: x().select(0, nbgrad.tensor(True)), lambda: x().triu(nbgrad.tensor(True)),
    lambda: x().kthvalue(nbgrad.tensor(True)), lambda: nbgrad.eye(nbgrad.tensor(True)),
    lambda: nbgrad.embedding(nbgrad.zeros(4, 3), nbgrad.tensor([0, 1]), nbgrad.tensor(True)),
    # (unpacked in order: the bool tensor before the dtype that the type check did not read)
    lambda: x().repeat(nbgrad.tensor([True]), nbgrad.tensor(True), nbgrad.bool),
])
def test_a_bool_tensor_for_a_symint_is_a_runtime_error(call):
    with pytest.raises(RuntimeError, match=SYMINT_BOOL):
        call()


def test_a_bool_tensor_in_an_int_list_is_its_value():
    assert tuple(x().sum((nbgrad.tensor(True),)).shape) == (2,)
    assert tuple(x().amax((0, nbgrad.tensor(True))).shape) == ()
    assert x().flip((0, nbgrad.tensor(True))).tolist() == [[5.0, 4.0, 3.0], [2.0, 1.0, 0.0]]
    assert tuple(x().permute(nbgrad.tensor(True), 0).shape) == (3, 2)
    assert x().roll(nbgrad.tensor(True)).tolist() == [[5.0, 0.0, 1.0], [2.0, 3.0, 4.0]]
    # a SymInt that is an integer tensor of one element, of any dim: its value
    loss = F.nll_loss(nbgrad.zeros(3, 6), nbgrad.tensor([0, 1, 5]), ignore_index=nbgrad.tensor([5]))
    assert loss.item() == 0.0


def test_select_and_narrow_read_their_symints():
    with pytest.raises(TypeError, match="^select\\(\\): argument 'index' \\(position 2\\) must be int, not bool$"):
        x().select(0, True)
    with pytest.raises(TypeError, match="^select\\(\\): argument 'index' \\(position 2\\) must be int, not float$"):
        x().select(0, 1.5)
    assert x().select(0, nbgrad.tensor([1])).tolist() == [3.0, 4.0, 5.0]
    for bad in ((0, True, 1), (0, 1.5, 1), (0, 1, True), (0, 1, 1.0)):
        with pytest.raises(TypeError, match="^narrow\\(\\) received an invalid combination of arguments"):
            x().narrow(*bad)
    # a tensor start: narrow.Tensor's overload, a 0-dim integral one only, before the dim is read
    for start in (nbgrad.tensor(True), nbgrad.tensor(1.0), nbgrad.tensor([1])):
        with pytest.raises(RuntimeError, match="^start must be an 0-dim integral Tensor.$"):
            x().narrow(5, start, 1)
    assert x().narrow(1, nbgrad.tensor(1, dtype=nbgrad.uint8), 2).tolist() == [[1.0, 2.0], [4.0, 5.0]]
    assert x().narrow(0, 1, nbgrad.tensor([1])).tolist() == [[3.0, 4.0, 5.0]]
    for split_size in (True, False):
        with pytest.raises(TypeError, match="^split\\(\\) received an invalid combination of arguments - got "
                                            "\\(Tensor, bool, int\\)"):
            x().split(split_size)
    assert [t.tolist() for t in x().split(nbgrad.tensor(True))] == [[[0.0, 1.0, 2.0]], [[3.0, 4.0, 5.0]]]


def test_unflatten_parses_its_sizes_before_reading_the_dim():
    for sizes in (-1, 3):
        with pytest.raises(TypeError, match="^unflatten\\(\\): argument 'sizes' \\(position 2\\) must be tuple of "
                                            "ints, not int$"):
            nbgrad.zeros(()).unflatten(0, sizes)
    with pytest.raises(TypeError, match="^unflatten\\(\\): argument 'dim' \\(position 1\\) must be int, not float$"):
        nbgrad.zeros(3).unflatten(0.5, (3,))
    assert nbgrad.zeros(3).unflatten(nbgrad.tensor(0), (3,)).shape == (3,)
