"""The classes API fuzz seed 48 found (PyTorch 2.13's behaviour recorded): batch_norm's CPU rule
for its parameters' dtypes (the first given one decides: the input's dtype for all, or the
mixed mode of float32 parameters for a 16-bit input; instance_norm checks only its affine
parameters); nan_to_num casts its replacements unchecked (past the type's range is inf); an
out= with internal overlap is refused by elementwise ops whatever its shape (before its resize)."""
import math

import pytest

import nbgrad

F = nbgrad.nn.functional
MIXED = "^mixed dtype \\(CPU\\): expect parameter to have scalar type of Float$"


def test_batch_norm_parameter_dtypes():
    x = nbgrad.ones(2, 1, 3)
    f64 = (nbgrad.zeros(1, dtype=nbgrad.float64), nbgrad.ones(1, dtype=nbgrad.float64))
    with pytest.raises(RuntimeError, match=MIXED):
        F.batch_norm(x, *f64)
    with pytest.raises(RuntimeError, match=MIXED):
        F.batch_norm(x, nbgrad.zeros(1), nbgrad.ones(1), bias=nbgrad.ones(1, dtype=nbgrad.float16))
    with pytest.raises(RuntimeError, match=MIXED):
        F.batch_norm(x, None, None, weight=nbgrad.ones(1, dtype=nbgrad.float64), training=True)
    with pytest.raises(RuntimeError, match="^expected scalar type Double but found Float$"):
        F.batch_norm(x.double(), nbgrad.zeros(1), nbgrad.ones(1), weight=nbgrad.ones(1, dtype=nbgrad.float64))
    assert F.batch_norm(x.double(), *f64).dtype == nbgrad.float64
    for dtype in (nbgrad.float16, nbgrad.bfloat16):      # the mixed mode
        assert F.batch_norm(x.to(dtype), nbgrad.zeros(1), nbgrad.ones(1)).dtype == dtype
    with pytest.raises(NotImplementedError, match='^"batch_norm" not implemented for \'Long\'$'):
        F.batch_norm(nbgrad.ones(2, 1, 3, dtype=nbgrad.int64), nbgrad.zeros(1), nbgrad.ones(1))
    # instance_norm: its running statistics are not checked, its weight is
    assert F.instance_norm(x, *f64).dtype == nbgrad.float32
    with pytest.raises(RuntimeError, match=MIXED):
        F.instance_norm(x, weight=nbgrad.ones(1, dtype=nbgrad.float64))


def test_nan_to_num_casts_its_replacements_unchecked():
    x = nbgrad.tensor([math.nan, 1.0, math.inf, -math.inf], dtype=nbgrad.float16)
    assert nbgrad.nan_to_num(x, nan=2 ** 31).tolist() == [math.inf, 1.0, 65504.0, -65504.0]
    assert nbgrad.nan_to_num(x, posinf=1e10, neginf=-1e10).tolist() == [0.0, 1.0, math.inf, -math.inf]
    y = x.clone()
    y.nan_to_num_(1e300)
    assert y.tolist()[0] == math.inf
    assert nbgrad.nan_to_num(nbgrad.tensor([math.nan], dtype=nbgrad.bfloat16), nan=0.1).item() == 0.10009765625


@pytest.mark.parametrize("call", [lambda o: nbgrad.add(nbgrad.ones(2, 3, 5), 1, out=o),
                                  lambda o: nbgrad.exp(nbgrad.ones(2, 5), out=o),
                                  lambda o: nbgrad.mul(nbgrad.ones(2, 3, 5), 2, out=o),
                                  lambda o: F.normalize(nbgrad.ones(2, 3, 5), dim=1, out=o)])
def test_an_expanded_out_is_refused_whatever_its_shape(call):
    out = nbgrad.zeros(3, 1).expand(3, 4)
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to tensor "
                                           "refers to a single memory location"):
        call(out)
    assert out.shape == (3, 4) and out._version == 0


def test_glu_parses_dim_after_its_python_check():
    for dim, shown in ((False, "bool"), (2.0, "float")):
        with pytest.raises(TypeError, match=rf"^glu\(\): argument 'dim' \(position 2\) must be int, not {shown}$"):
            F.glu(nbgrad.ones(1, 4), dim)
    with pytest.raises(RuntimeError, match="^glu does not support scalars because halving size must be even$"):
        F.glu(nbgrad.tensor(1.0), 0.5)


@pytest.mark.parametrize("call", [lambda w: F.nll_loss(nbgrad.ones(2, 3), nbgrad.tensor([5, 0]), weight=w),
                                  lambda w: F.cross_entropy(nbgrad.ones(2, 3), nbgrad.tensor([0, 1]), weight=w),
                                  lambda w: F.cross_entropy(nbgrad.ones(2, 3), nbgrad.tensor([0, 1]), weight=w,
                                                            label_smoothing=0.1),
                                  lambda w: F.nll_loss(nbgrad.ones(2, 3, 4), nbgrad.zeros(2, 4, dtype=nbgrad.int64),
                                                       weight=w)])
def test_nll_loss_reads_its_weight_as_the_inputs_type(call):
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        call(nbgrad.ones(3, dtype=nbgrad.float64))
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Long$"):
        call(nbgrad.ones(3, dtype=nbgrad.int64))
    # probability targets promote instead
    loss = F.cross_entropy(nbgrad.ones(2, 3), nbgrad.ones(2, 3), weight=nbgrad.ones(3, dtype=nbgrad.float64))
    assert loss.dtype == nbgrad.float64


def test_vector_norm_names_the_first_empty_dim_as_given():
    message = "^linalg.vector_norm cannot compute the -3 norm on the dimension {}because this dimension is empty"
    with pytest.raises(RuntimeError, match=message.format(-1)):
        nbgrad.linalg.vector_norm(nbgrad.ones(0), -3, (-1, 1))
    with pytest.raises(RuntimeError, match=message.format(0)):
        nbgrad.linalg.vector_norm(nbgrad.ones(0, 2), -3, (0, 5))
    with pytest.raises(IndexError, match="^Dimension out of range"):
        nbgrad.linalg.vector_norm(nbgrad.ones(0, 2), -1, (5, 0))


def test_unflatten_asks_for_sizes_first_and_select_parses_dim_first():
    x = nbgrad.ones(3, 3)
    with pytest.raises(RuntimeError, match="^unflatten: sizes must be non-empty$"):
        x.unflatten(nbgrad.ones(1, 3, dtype=nbgrad.int64), -0.0)
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        x.unflatten(nbgrad.ones(2, 3), nbgrad.ones(3, 1))
    with pytest.raises(TypeError, match=r"^unflatten\(\): argument 'sizes' \(position 2\) must be tuple of ints"):
        x.unflatten(1, nbgrad.tensor([3]))
    for dim, shown in ((nbgrad.ones(2, 0, dtype=nbgrad.bool), "Tensor"), (0.5, "float")):
        with pytest.raises(TypeError, match=rf"^select\(\): argument 'dim' \(position 1\) must be int, not {shown}$"):
            nbgrad.tensor(1).select(dim, 3)


@pytest.mark.parametrize("call", [
    lambda: nbgrad.zeros_like(nbgrad.ones(2, dtype=nbgrad.bool), requires_grad=True, memory_format=nbgrad.ones(1)),
    lambda: nbgrad.ones_like(nbgrad.ones(2), device="bilinear", memory_format=nbgrad.ones(1)),
])
def test_memory_format_is_parsed_before_the_other_arguments_are_read(call):
    with pytest.raises(TypeError, match=r"_like\(\): argument 'memory_format' must be torch.memory_format, not "
                                        "Tensor$"):
        call()
