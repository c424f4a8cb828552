"""PyTorch's argument parser's words, which nbgrad's refusals repeat (ops/_argument_check.py):
the parameters read in order, each refused or missing where it stands, then the keywords it did
not read; "got (...)" lists the keywords in the iteration order of the std::unordered_map it
copies them into; a type by its tp_name; `flip(IntArrayRef dims)` also taking its ints as
positional arguments.  Expected messages recorded from PyTorch 2.13."""
import numpy as np
import pytest

import nbgrad


def _x():
    return nbgrad.ones(2, 2)


@pytest.mark.parametrize("call,message", [
    # the keywords in libstdc++'s unordered_map order, each followed by ", " without positionals
    (lambda x: nbgrad.max(input=x, keepdim="a", dim="b"),
     "max() received an invalid combination of arguments - got (keepdim=str, dim=str, input=Tensor, ), but"),
    (lambda x: nbgrad.max(x, keepdim="a", dim="b"),
     "max() received an invalid combination of arguments - got (Tensor, dim=str, keepdim=str), but"),
    (lambda x: nbgrad.sum(input=x, dim="b"),
     "sum() received an invalid combination of arguments - got (dim=str, input=Tensor, ), but"),
    (lambda x: nbgrad.narrow(x, length="a", start="b", dim=0),
     "narrow() received an invalid combination of arguments - got (Tensor, dim=int, start=str, length=str), but"),
    (lambda x: nbgrad.clamp(x, max="a", min="b"),
     "clamp() received an invalid combination of arguments - got (Tensor, min=str, max=str), but"),
    # parameters in order: a bad one before a keyword no parameter has; a missing one names all
    # the required ones from there (and "arguments" for one, as PyTorch words it)
    (lambda x: nbgrad.flip(x, bogus=1, dims="a"), "flip(): argument 'dims' must be tuple of ints, not str"),
    (lambda x: nbgrad.flip(dims="a"), 'flip() missing 2 required positional argument: "input", "dims"'),
    (lambda x: nbgrad.transpose(x, dim1=0), 'transpose() missing 2 required positional argument: "dim0", "dim1"'),
    (lambda x: nbgrad.roll(x, dims="b"), 'roll() missing 1 required positional arguments: "shifts"'),
    (lambda x: nbgrad.flip(x, [0], dims=[0]), "flip() got multiple values for argument 'dims'"),
    (lambda x: nbgrad.sum(x, axis=0, dim=0), "sum() got an unexpected keyword argument 'axis'"),
    (lambda x: nbgrad.diagonal(x, dim2="a", dim1="b", offset="c"), "diagonal(): argument 'offset' must be int, not str"),
    (lambda x: nbgrad.index_select(x, index=x, dim="a"), "index_select(): argument 'dim' must be int, not str"),
    # flip(IntArrayRef dims): ints as positional arguments are its list
    (lambda x: x.flip(0, "a"),
     "flip(): argument 'dims' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\""),
    (lambda x: x.flip("a", 0), "flip() takes 1 positional argument but 2 were given"),
    (lambda x: x.flip(0, dims=1), "flip() got multiple values for argument 'dims'"),
    (lambda x: nbgrad.zeros(2, 2, size=3), "zeros() got multiple values for argument 'size'"),
    (lambda x: nbgrad.zeros(2, "a"),
     "zeros(): argument 'size' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\""),
    (lambda x: x.hsplit(1, "a"),
     "hsplit(): argument 'indices' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\""),
    # a C type by its dotted name
    (lambda x: nbgrad.max(x, np.ones(2), np.int64(1)),
     "max() received an invalid combination of arguments - got (Tensor, numpy.ndarray, numpy.int64), but"),
])
def test_the_parsers_words(call, message):
    with pytest.raises(TypeError) as e:
        call(_x())
    assert str(e.value).startswith(message)


def test_a_list_parameter_takes_its_ints_as_positional_arguments():
    x = nbgrad.ones(2, 2)
    assert [tuple(t.shape) for t in x.vsplit(1, 1)] == [(1, 2), (0, 2), (1, 2)]
    assert [tuple(t.shape) for t in x.vsplit(1, nbgrad.tensor(1))] == [(1, 2), (0, 2), (1, 2)]
    assert [tuple(t.shape) for t in nbgrad.ones(4).hsplit(nbgrad.tensor(True))] == [(1,), (3,)]
    assert x.permute(nbgrad.tensor(True), 0).shape == (2, 2)
    with pytest.raises(TypeError, match=r"^hsplit\(\) received an invalid combination of arguments - got \(Tensor, Tensor\)"):
        nbgrad.hsplit(x, nbgrad.tensor([1]))       # (the function's list is not its first parameter)


@pytest.mark.parametrize("call,message", [
    # the parser checks a list's first element (its words: "found element ... at pos 0"; by
    # keyword: "not tuple"); a later one fails when the list is unpacked ("at pos 2", from 1)
    (lambda x: x.flip((0, 1.5)), "flip(): argument 'dims' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got float\""),
    (lambda x: x.flip((1.5, 0)), "flip(): argument 'dims' (position 1) must be tuple of ints, but found element of type float at pos 0"),
    (lambda x: x.flip((0, nbgrad.tensor(1.5))), "flip(): argument 'dims' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got Tensor\""),
    (lambda x: nbgrad.flip(x, dims=(1.5, 0)), "flip(): argument 'dims' must be tuple of ints, not tuple"),
    (lambda x: nbgrad.zeros(("a", 2)), "zeros(): argument 'size' (position 1) must be tuple of ints, but found element of type str at pos 0"),
    # nn.functional's _pair: an iterable's items (a tensor's rows; a 0-d tensor's TypeError)
    (lambda x: F.unfold(nbgrad.ones(1, 3, 4, 4), 2.0),
     "im2col(): argument 'kernel_size' (position 2) must be tuple of ints, but found element of type float at pos 0"),
    (lambda x: F.unfold(nbgrad.ones(1, 3, 4, 4), nbgrad.tensor(2)), "iteration over a 0-d tensor"),
    (lambda x: F.unfold(nbgrad.ones(1, 3, 4, 4), 2, padding=nbgrad.tensor([1.5, 0])),
     "im2col(): argument 'padding' (position 4) must be tuple of ints, but found element of type Tensor at pos 0"),
    (lambda x: F.fold(nbgrad.ones(1, 12, 4), (3, 3), 2, padding=nbgrad.tensor([[1, 0]])),
     "col2im(): argument 'padding' (position 5) must be tuple of ints, but found element of type Tensor at pos 0"),
])
def test_list_arguments_in_the_parsers_words(call, message):
    with pytest.raises(TypeError) as e:
        call(_x())
    assert str(e.value) == message


F = nbgrad.nn.functional


def test_fold_and_unfold_read_their_sizes_as_pytorchs_pair():
    x = nbgrad.ones(1, 3, 4, 4)
    assert F.unfold(x, 2, padding=nbgrad.tensor([1, 0])).shape == (1, 12, 15)     # (a tensor's rows)
    assert F.unfold(x, [2, 2], 1, 0, 1).shape == (1, 12, 9)
    with pytest.raises(RuntimeError, match="^It is expected padding equals to 2, but got size 1$"):
        F.unfold(x, 2, padding=nbgrad.tensor([1]))
    assert F.fold(nbgrad.ones(1, 12, 4), (3, 3), 2).shape == (1, 3, 3, 3)
