"""The classes API fuzz seed 47 found (PyTorch 2.13's behaviour recorded): the parser's refusals
before ATen's checks (split's sizes, flatten's dims, squeeze's dims), Scalars read as int64 or
as the tensor's type before any index (hardtanh's limits, index_fill's value), mv's order of
checks, an empty index list for index_put, and linalg composites whose out= is checked for its
dtype before the work but refused for requiring grad only when it is written."""
import math

import pytest

import nbgrad

F = nbgrad.nn.functional


def test_the_parser_refuses_before_atens_checks():
    s = nbgrad.tensor(1.0)
    for bad, shown in ((nbgrad.ones(2), "Tensor"), (1e30, "float")):
        with pytest.raises(TypeError, match=rf"^split_with_sizes\(\): argument 'split_sizes' \(position 2\) must be "
                                            rf"tuple of ints, not {shown}$"):
            s.split(bad)
    with pytest.raises(RuntimeError, match="^split expects at least a 1-dimensional tensor$"):
        s.split(1)
    with pytest.raises(TypeError, match=r"^flatten\(\): argument 'end_dim' \(position 2\) must be int, not float$"):
        nbgrad.ones(3, 1).flatten(2, -1.5)
    with pytest.raises(TypeError, match=r"^squeeze\(\): argument 'dim' failed to unpack the object at pos 2 with "
                                        "error \"type must be tuple of ints,but got Tensor\"$"):
        nbgrad.ones(2, 3).squeeze(-2 ** 40, nbgrad.ones(0, 3))
    for call in (lambda x: x.squeeze(None), lambda x: x.squeeze(dim=None)):
        with pytest.raises(TypeError, match=r"^squeeze\(\) received an invalid combination of arguments"):
            call(nbgrad.ones(2, 1))


def test_scalars_are_read_before_any_index():
    for call in (lambda x: F.hardtanh_(x, max_val=math.nan), lambda x: F.hardtanh(x, min_val=-math.inf)):
        x = nbgrad.ones(2, 2, dtype=nbgrad.int64)
        with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t without overflow$"):
            call(x)
        assert x._version == 0
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t without overflow$"):
        nbgrad.index_fill(nbgrad.ones(2, 1, 3, dtype=nbgrad.int64), -1, nbgrad.tensor([-4, 0]), math.inf)


def test_mv_checks_the_matrix_rank_as_aten():
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        nbgrad.mv(nbgrad.tensor(1.0), nbgrad.ones(3, 3))
    for a, v, shown in ((nbgrad.ones(3), nbgrad.ones(3), "1, 1, 1"), (nbgrad.ones(2, 3, 3), nbgrad.ones(3), "1, 3, 1"),
                        (nbgrad.ones(3, 3), nbgrad.ones(3, 1), "1, 2, 2")):
        with pytest.raises(RuntimeError, match=f"^vector \\+ matrix @ vector expected, got {shown}$"):
            nbgrad.mv(a, v)


def test_index_put_refuses_an_empty_index_list():
    x = nbgrad.ones(2, 3)
    for call in (lambda: nbgrad.index_put(x, (), nbgrad.tensor(1.0)), lambda: x.index_put_([], nbgrad.tensor(1.0))):
        with pytest.raises(RuntimeError):       # (PyTorch's words are an internal accident)
            call()
    assert x._version == 0
    with pytest.raises(TypeError, match="^expected Tensor as element 0 in argument 1, but got NoneType$"):
        nbgrad.index_put(x, (None,), nbgrad.tensor(1.0))


def test_linalg_composites_check_outs_dtype_first_and_its_grad_last():
    with pytest.raises(RuntimeError, match="^tensorsolve: Expected result to be safely castable from Long dtype, but "
                                           "got result with dtype Bool$"):
        nbgrad.linalg.tensorsolve(nbgrad.ones(3, dtype=nbgrad.int64), nbgrad.ones(3, 3), (-2, -3),
                                  out=nbgrad.empty(0, dtype=nbgrad.bool))
    with pytest.raises(RuntimeError, match="^linalg.cond: Expected result to be safely castable from Float dtype"):
        nbgrad.linalg.cond(nbgrad.ones(1), out=nbgrad.empty(0, dtype=nbgrad.int64))
    with pytest.raises(RuntimeError, match="^linalg.pinv: Expected result to be safely castable from Float dtype"):
        nbgrad.linalg.pinv(nbgrad.ones(1), atol=0.5, out=nbgrad.empty(0, dtype=nbgrad.int64))
    # the work's own error comes before the refusal of an out that requires grad
    with pytest.raises(IndexError, match="^Dimension out of range"):
        nbgrad.linalg.tensorsolve(nbgrad.ones(0, 3, dtype=nbgrad.float16), nbgrad.ones(2, 3, 4), (-3, 2, -1),
                                  out=nbgrad.empty(3, 3, requires_grad=True))
    with pytest.raises(RuntimeError, match="matrix_rank: The input tensor input must have at least 2 "):
        nbgrad.linalg.matrix_rank(nbgrad.ones(1), out=nbgrad.empty(0, dtype=nbgrad.bool))


def test_addmv_checks_dims_then_sizes_then_dtypes():
    cases = [(nbgrad.ones(0, 3), nbgrad.ones(()), nbgrad.ones(0), "vector \\+ matrix @ vector expected, got 2, 0, 1"),
             (nbgrad.ones(2, 2), nbgrad.ones(2, 2), nbgrad.ones(2), "vector \\+ matrix @ vector expected, got 2, 2, 1"),
             (nbgrad.ones(4), nbgrad.ones(3, 3, dtype=nbgrad.float64), nbgrad.ones(3),
              "size mismatch, got input \\(4\\), mat \\(3x3\\), vec \\(3\\)"),
             (nbgrad.ones(3), nbgrad.ones(3, 3, dtype=nbgrad.float64), nbgrad.ones(3),
              "addmv input tensors must have the same dtype, but got Float, Double, and Float")]
    for input, mat, vec, message in cases:
        with pytest.raises(RuntimeError, match=f"^{message}$"):
            nbgrad.addmv(input, mat, vec)
    assert nbgrad.addmv(nbgrad.ones(1), nbgrad.ones(3, 2), nbgrad.ones(2)).tolist() == [3.0, 3.0, 3.0]
