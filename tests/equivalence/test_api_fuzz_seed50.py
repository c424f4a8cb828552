"""The other classes API fuzz seed 50 found (PyTorch 2.13's behaviour recorded; its int-list
class is test_int_list_arguments.py): composites whose out= copies a result computed with
autograd on (tensordot, inner, nuclear_norm: out's history is CopyBackwards); a tuple of outs
counted before autograd's refusal; torch.tensor(None, dtype=...) refused by the dtype's
conversion; the low-precision refusal of the matrix norms made from singular values; index_select
(and embedding) on an empty matrix; repeat_interleave's dtype dispatch before its dim check; and
checks each in its op's order (cumulative_trapezoid, addbmm_, chain_matmul's out, adaptive pools)."""
import math

import numpy as np
import pytest

import nbgrad

F = nbgrad.nn.functional


def test_tensordot_inner_and_nuclear_norm_copy_into_out_with_history():
    a = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    for call, expected in ((lambda o: nbgrad.tensordot(a, a, 1, out=o), [[7.0, 10.0], [15.0, 22.0]]),
                           (lambda o: nbgrad.tensordot(a, a, 1, o), [[7.0, 10.0], [15.0, 22.0]]),   # (by position)
                           (lambda o: nbgrad.inner(a, a, out=o), [[5.0, 11.0], [11.0, 25.0]])):
        out = nbgrad.zeros(0)
        result = call(out)
        assert result is out and out.tolist() == expected
        assert out.requires_grad and type(out.grad_fn).__name__ == "CopyBackwards"
        out.sum().backward()
        assert a.grad is not None
        a.grad = None
    out = nbgrad.zeros(0)
    nbgrad.nuclear_norm(a, out=out)
    singular = np.linalg.svd(np.array([[1.0, 2.0], [3.0, 4.0]]), compute_uv=False)
    assert math.isclose(out.item(), singular.sum(), rel_tol=1e-6)
    assert type(out.grad_fn).__name__ == "CopyBackwards"
    with pytest.raises(RuntimeError, match="^tensordot: Expected the output tensor to have dtype Float, but got an "
                                           "output tensor with dtype Double"):
        nbgrad.tensordot(a, a, 1, out=nbgrad.zeros(0, dtype=nbgrad.float64))


def test_out_refusals_name_the_op_pytorch_reaches_and_histc_takes_grad_inputs():
    v = nbgrad.ones(3, requires_grad=True)
    m = nbgrad.ones(3, 3, requires_grad=True)
    for call, op in ((lambda o: nbgrad.outer(v, v, out=o), "mul"), (lambda o: nbgrad.hstack([v, v], out=o), "cat"),
                     (lambda o: nbgrad.chain_matmul(m, m, out=o), "mm"), (lambda o: nbgrad.square(m, out=o), "pow"),
                     (lambda o: nbgrad.linalg.vecdot(m, m, out=o), "sum"), (lambda o: nbgrad.diff(v, out=o), "sub")):
        with pytest.raises(RuntimeError, match=f"^{op}\\(\\): functions with out=... arguments don't support"):
            call(nbgrad.zeros(0))
    out = nbgrad.zeros(0)
    assert nbgrad.histc(v, bins=2, out=out) is out and not out.requires_grad and out.tolist() == [0.0, 3.0]
    # diff's out=: sub's dtype rule
    o = nbgrad.zeros(0, dtype=nbgrad.float64)
    assert nbgrad.diff(nbgrad.tensor([1.0, 4.0, 9.0]), out=o) is o and o.tolist() == [3.0, 5.0]
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        nbgrad.diff(nbgrad.tensor([1.0, 4.0]), out=nbgrad.zeros(0, dtype=nbgrad.int64))


def test_a_tuple_of_outs_is_counted_before_autograd_refuses():
    with pytest.raises(TypeError, match="^expected tuple of 2 elements but got 0$"):
        nbgrad.linalg.inv_ex(nbgrad.eye(3, requires_grad=True), out=())
    with pytest.raises(TypeError, match="^chain_matmul\\(\\): argument 'out' must be Tensor, not int$"):
        nbgrad.chain_matmul(out=3)


@pytest.mark.parametrize("data, dtype, message", [
    (None, nbgrad.float64, "^must be real number, not NoneType$"),
    ([1, None], nbgrad.float32, "^must be real number, not NoneType$"),
    (None, nbgrad.int32, "^'NoneType' object cannot be interpreted as an integer$"),
    ([None], nbgrad.bool, "^'NoneType' object cannot be interpreted as an integer$")])
def test_tensor_of_none_with_a_dtype_is_its_conversions_error(data, dtype, message):
    with pytest.raises(TypeError, match=message):
        nbgrad.tensor(data, dtype=dtype)
    with pytest.raises(TypeError, match=message):
        nbgrad.as_tensor(data, dtype=dtype)
    with pytest.raises(RuntimeError, match="^Could not infer dtype of NoneType$"):
        nbgrad.tensor(data)


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
@pytest.mark.parametrize("dtype", [nbgrad.float16, nbgrad.bfloat16])
def test_spectral_matrix_norms_refuse_low_precision_before_the_dims(ord, dtype):
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm: Low precision dtypes not supported. Got "):
        nbgrad.linalg.matrix_norm(nbgrad.ones(3, 3, dtype=dtype), ord, dim=(2, 2))
    # fro, 1 and inf take them
    assert nbgrad.linalg.matrix_norm(nbgrad.ones(2, 2, dtype=dtype), 1).item() == 2.0


def test_index_select_of_an_empty_matrix():
    for x, dim, idx, message in (
            (nbgrad.zeros(2, 0), 0, [3], "^INDICES element is out of DATA bounds, id=3 axis_dim=2$"),
            (nbgrad.zeros(2, 0), 0, [-1, 5], "^INDICES element is out of DATA bounds, id=-1 axis_dim=2$"),
            (nbgrad.zeros(2, 0, 3), 0, [3], "^INDICES element is out of DATA bounds, id=3 axis_dim=2$"),
            (nbgrad.zeros(2, 0), 1, [0], "^index_select\\(\\): self indexing axis dim should be positive$")):
        with pytest.raises(RuntimeError, match=message):
            x.index_select(dim, nbgrad.tensor(idx))
    with pytest.raises(RuntimeError, match="^INDICES element is out of DATA bounds, id=3 axis_dim=2$"):
        F.embedding(nbgrad.tensor([3]), nbgrad.zeros(2, 0))
    with pytest.raises(IndexError, match="^index out of range in self$"):
        nbgrad.zeros(0).index_select(0, nbgrad.tensor([5]))
    assert nbgrad.zeros(2, 0).index_select(0, nbgrad.tensor([1, 0])).shape == (2, 0)


@pytest.mark.parametrize("call", [lambda: nbgrad.ones(2, 3).repeat_interleave(nbgrad.tensor(True)),
                                  lambda: nbgrad.ones(2, 3).repeat_interleave(nbgrad.tensor(1.5)),
                                  lambda: nbgrad.ones(2, 3).repeat_interleave(nbgrad.tensor(2, dtype=nbgrad.uint8)),
                                  lambda: nbgrad.repeat_interleave(nbgrad.tensor([[1.0, 2.0]]))])
def test_repeat_interleave_dispatches_on_the_repeats_dtype_first(call):
    with pytest.raises(NotImplementedError, match="^\"repeat_interleave_cpu\" not implemented for "):
        call()
    with pytest.raises(RuntimeError, match="^repeat_interleave only accept 1D vector as repeat$"):
        nbgrad.repeat_interleave(nbgrad.tensor([[1, 2]]))


def test_checks_in_their_ops_order():
    with pytest.raises(IndexError, match="^Dimension out of range \\(expected to be in range of \\[-1, 0\\], but "
                                         "got 5\\)$"):
        nbgrad.cumulative_trapezoid(nbgrad.zeros(3), x=nbgrad.zeros(2, 2, dtype=nbgrad.bool), dim=5)
    with pytest.raises(RuntimeError, match="received a bool input for `y`"):
        nbgrad.cumulative_trapezoid(nbgrad.zeros(3, dtype=nbgrad.bool), dim=5)
    expanded = nbgrad.zeros(3).expand(2, 3)
    with pytest.raises(IndexError, match="^Dimension out of range \\(expected to be in range of \\[-2, 1\\], but "
                                         "got 2\\)$"):
        expanded.addbmm_(nbgrad.zeros(1, 2, 4), nbgrad.zeros(4, 3))
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element"):
        expanded.addbmm_(nbgrad.zeros(1, 2, 4), nbgrad.zeros(1, 4, 3))
    # an empty output of an integer input: no kernel, so no dtype refusal
    assert F.adaptive_avg_pool2d(nbgrad.zeros(2, 1, 3, dtype=nbgrad.int64), (0, 2)).shape == (2, 0, 2)
    with pytest.raises(NotImplementedError):
        F.adaptive_avg_pool2d(nbgrad.zeros(2, 1, 3, dtype=nbgrad.int64), (2, 2))
